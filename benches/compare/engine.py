"""Times Python Murano's executor replaying the engine conformance steps.

Run with the Python that has Debian's python3-murano (Murano 14.0.0, yaql
2.0.0): /usr/bin/python3 engine.py SHARED REPETITIONS [--quick]. It replays
the public tests of category `pure` (no Python callbacks, mocks or class
configuration) through Murano's own DSL test foundation, on the core
library copy in SHARED/conformance/engine/meta, and prints one JSON line:
{"engine": median seconds, "engine-count": steps replayed, "tests": n}.
"""

import json
import os
import warnings
import statistics
import sys
import time

import eventlet.debug

from murano.common import config  # noqa: F401  (registers Murano's options)
from murano.tests.unit.dsl.foundation import runner as dsl_runner
from murano.tests.unit.dsl.foundation import test_package_loader

SHARED, REPETITIONS = sys.argv[1], int(sys.argv[2])
QUICK = "--quick" in sys.argv[3:]
DIR = os.path.join(SHARED, "conformance", "engine")


def read_jsonl(name):
    with open(os.path.join(DIR, name), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def selected():
    """The replayed tests, as the Rust side selects them."""
    tests = [t for t in read_jsonl("tests.jsonl")
             if t["split"] == "public" and t["category"] == "pure"
             and not t["class_configs"]]
    names = {t["test"] for t in tests}
    steps = {}
    for c in read_jsonl("cases.jsonl"):
        if c["test"] in names:
            steps.setdefault(c["test"], []).append(c)
    out = [sorted(steps.get(t["test"], []), key=lambda s: s["step"])
           for t in sorted(tests, key=lambda t: t["test"])]
    return out[: len(out) // 4] if QUICK else out


def decode(value, store):
    if isinstance(value, list):
        return [decode(v, store) for v in value]
    if isinstance(value, dict):
        if len(value) == 1 and "$map" in value:
            return {decode(k, store): decode(v, store) for k, v in value["$map"]}
        if len(value) == 1 and "$set" in value:
            return frozenset(decode(v, store) for v in value["$set"])
        if len(value) == 1 and "$object" in value and store is not None:
            return store.get(value["$object"]["id"])
        return {k: decode(v, store) for k, v in value.items()}
    return value


def loaders():
    meta = os.path.join(DIR, "meta")
    core = test_package_loader.TestPackageLoader(
        os.path.join(meta, "io.murano", "Classes"), "io.murano")
    return test_package_loader.TestPackageLoader(
        os.path.join(meta, "tests"), "tests", core)


def replay(tests, loader):
    count = 0
    for steps in tests:
        traces = []
        functions = {"trace": lambda data: traces.append(data)}
        runners = []
        for step in steps:
            kind = step["kind"]
            try:
                if kind == "new_runner":
                    model = decode(step["model"], None)
                    runners.append(dsl_runner.Runner(model, loader, functions))
                    count += 1
                    continue
                r = runners[step["runner"]]
                if kind == "call":
                    store = r.executor.object_store
                    receiver = step["receiver"]
                    if "object" in receiver:
                        target = store.get(receiver["object"])
                    else:
                        target = r.on_class(receiver["class"])._receiver
                    args = decode(step["args"], store)
                    kwargs = decode(step["kwargs"], store)
                    r._execute(step["method"], target, *args, **kwargs)
                elif kind == "serialized_model":
                    r.serialized_model
                else:
                    r.executor.finalize(r.root)
            except Exception:
                pass
            count += 1
    return count


def main():
    warnings.filterwarnings("ignore")
    eventlet.debug.hub_exceptions(False)
    tests = selected()
    loader = loaders()
    count = replay(tests, loader)  # warm-up: classes loaded and cached
    times = []
    for _ in range(REPETITIONS):
        start = time.perf_counter()
        replay(tests, loader)
        times.append(time.perf_counter() - start)
    print(json.dumps({"engine": statistics.median(times), "engine-count": count,
                      "tests": len(tests)}))


main()
