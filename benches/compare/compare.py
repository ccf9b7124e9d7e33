"""Side-by-side timing of the Python reference and the Rust crates.

Run through run.sh, which prepares the virtual environment. Both sides
work on the same inputs from the shared data folder, in the same order;
each workload is repeated and the median is reported. Prints the machine,
the versions, the medians and one line per comparison:

    ratio <name>: <R>x (python <t>, rust <t>)
"""

import collections.abc  # noqa: F401  (yaql 3.2.0 needs it imported first)
import glob
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

import yaml
import yaql
from yaql.language import exceptions as yaql_exceptions
from yaql.language import factory

SHARED = sys.argv[1]
RUST = sys.argv[2]
REPETITIONS = int(sys.argv[3])
QUICK = "--quick" in sys.argv


def median_time(work):
    work()  # warm-up
    samples = []
    for _ in range(REPETITIONS):
        start = time.perf_counter()
        work()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def murano_engine():
    """Murano's engine grammar, built with yaql's public API as
    murano/dsl/yaql_integration.py builds it."""
    f = factory.YaqlFactory()
    f.insert_operator(">", True, "is", factory.OperatorType.BINARY_LEFT_ASSOCIATIVE, False)
    f.insert_operator(None, True, ":", factory.OperatorType.BINARY_LEFT_ASSOCIATIVE, True)
    f.insert_operator(":", True, ":", factory.OperatorType.PREFIX_UNARY, False)
    f.operators.insert(0, ())
    return f.create()


def collect(value, out):
    if isinstance(value, dict):
        if "$yaql" in value:
            out.append(value["$yaql"])
            return
        for v in value.values():
            collect(v, out)
    elif isinstance(value, list):
        for v in value:
            collect(v, out)


def corpus_expressions():
    out = []
    for path in sorted(glob.glob(os.path.join(SHARED, "corpus/class/*.expected.json"))):
        with open(path, encoding="utf-8") as f:
            collect(json.load(f), out)
    return out


def class_loader(engine):
    """Murano's class-file loader (murano/engine/yaql_yaml_loader.py),
    rebuilt from PyYAML's and yaql's public APIs."""
    words = re.compile(r"^[\s\w\d.]*$")

    class Expression:
        def __init__(self, text):
            self.text = text
            self.parsed = engine(text)

        @staticmethod
        def match(text):
            if not isinstance(text, str) or words.match(text):
                return False
            try:
                engine(text)
                return True
            except yaql_exceptions.YaqlParsingException:
                return False

    class Loader(yaml.SafeLoader):
        pass

    resolvers = {k: v[:] for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    Loader.yaml_implicit_resolvers = resolvers
    Loader.add_constructor("!yaql", lambda loader, node: Expression(loader.construct_scalar(node)))
    Loader.add_implicit_resolver("!yaql", Expression, None)

    def load(data):
        return [d for d in yaml.load_all(data, Loader=Loader) if d]

    return load


def main():
    expressions = corpus_expressions()
    class_files = []
    for path in sorted(glob.glob(os.path.join(SHARED, "corpus/class/*.yaml"))):
        with open(path, "rb") as f:
            class_files.append(f.read())
    if QUICK:
        expressions = expressions[: len(expressions) // 10]
        class_files = class_files[: len(class_files) // 10]

    engine = murano_engine()

    def parse_all():
        n = 0
        for e in expressions:
            try:
                engine(e)
                n += 1
            except Exception:
                pass
        return n

    load = class_loader(engine)

    def load_all():
        n = 0
        for data in class_files:
            try:
                load(data)
                n += 1
            except Exception:
                pass
        return n

    python = {
        "yaql-parse": median_time(parse_all),
        "class-load": median_time(load_all),
    }
    args = [RUST, SHARED, str(REPETITIONS)] + (["--quick"] if QUICK else [])
    rust = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}")
    print(f"python {platform.python_version()}, yaql 3.2.0, PyYAML {yaml.__version__}")
    print(f"inputs: {len(expressions)} expressions, {len(class_files)} class files; {REPETITIONS} repetitions, medians")
    print(f"parsed: python {parse_all()}, rust {rust['yaql-parse-count']}; loaded: python {load_all()}, rust {rust['class-load-count']}")
    for name in ["yaql-parse", "class-load"]:
        p, r = python[name], rust[name]
        print(f"ratio {name}: {p / r:.1f}x (python {p * 1000:.1f} ms, rust {r * 1000:.2f} ms)")
    for name, why in [("yaql-eval", "the evaluator has not landed yet"),
                      ("package-check", "static checks have not landed yet")]:
        print(f"skipped {name}: {why}")


main()
