"""Side-by-side timing of the Python reference and the Rust crates
(Heat templates against openstack-heat 27.0.1's engine).

Run through run.sh, which prepares the virtual environment. Both sides
work on the same inputs from the shared data folder, in the same order;
each workload is repeated and the median is reported (the Rust side
repeats each for at least a second, since its repetitions are short). Prints the machine,
the versions, the medians and one line per comparison:

    ratio <name>: <R>x (python <t>, rust <t>)

`--only ROW[,ROW...]` (after the positional arguments) times only those
rows on both sides; `--rounds N` times each row N times, Python then Rust
back to back, and prints the median of the N ratios and each of them.
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
ZIPS = sys.argv[4]
QUICK = "--quick" in sys.argv
ROWS = ["engine", "hot-validate", "yaql-parse", "class-load", "yaql-eval", "package-check"]
# `--only ROW[,ROW...]`: time only these rows (both sides).
ONLY = None
if "--only" in sys.argv[5:]:
    ONLY = sys.argv[sys.argv.index("--only", 5) + 1].split(",")
    unknown = [r for r in ONLY if r not in ROWS]
    if unknown:
        sys.exit(f"unknown row(s): {', '.join(unknown)}; rows: {', '.join(ROWS)}")
# `--rounds N`: time each row N times, Python then Rust back to back, and
# give the median of the N ratios (the machine's speed drifts between the
# moments the two sides run; a round keeps them minutes apart no more).
ROUNDS = 1
if "--rounds" in sys.argv[5:]:
    ROUNDS = int(sys.argv[sys.argv.index("--rounds", 5) + 1])
    if ROUNDS < 1:
        sys.exit("--rounds needs a positive number")


def wanted(row):
    return ONLY is None or row in ONLY


def median_time(work, repetitions=None):
    work()  # warm-up
    samples = []
    for _ in range(repetitions or REPETITIONS):
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


def plain_json(value):
    """True for data without the oracle's special encodings."""
    if isinstance(value, dict):
        return all(not k.startswith("$") and plain_json(v) for k, v in value.items())
    if isinstance(value, list):
        return all(plain_json(v) for v in value)
    return True


def eval_cases():
    """The runnable standard-mode cases of yaql's own suite whose data is
    plain JSON (the Rust side selects the same ones)."""
    out = []
    with open(os.path.join(SHARED, "conformance/yaql/cases.jsonl"), encoding="utf-8") as f:
        for line in f:
            c = json.loads(line)
            if (c.get("mode") != "standard" or c.get("unsupported") or c.get("custom_context")
                    or c.get("nondeterministic") or c.get("outcome") != "value"
                    or not plain_json(c.get("data"))):
                continue
            out.append(c)
    return out


def zip_trees():
    """Every corpus package tree as a zip file (built once, outside the
    timing), as murano-pkg-check reads packages."""
    import zipfile
    os.makedirs(ZIPS, exist_ok=True)
    paths = []
    with open(os.path.join(SHARED, "corpus/packages/index.jsonl"), encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row.get("note"):
                continue
            tree = os.path.join(SHARED, "corpus", row["package"])
            target = os.path.join(ZIPS, row["package"].replace("/", "_") + ".zip")
            if not os.path.exists(target):
                with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
                    for entry in sorted(row["files"], key=lambda e: e["path"]):
                        z.write(os.path.join(tree, entry["path"]), entry["path"])
            paths.append(target)
    return sorted(paths)


def hot_templates():
    """The HOT conformance templates, in cases.jsonl order."""
    d = os.path.join(SHARED, "conformance/hot")
    out = []
    with open(os.path.join(d, "cases.jsonl"), encoding="utf-8") as f:
        for line in f:
            c = json.loads(line)
            with open(os.path.join(d, c["template"]), "rb") as t:
                out.append(t.read().decode("utf-8", "replace"))
    return out


def heat_validator():
    """Heat 27's own engine, offline: template_format.parse, Template, a
    Stack with every resource type a generic (OS::Heat::None) resource,
    then Stack.validate(validate_res_tmpl_only=True) with
    strict_validate=False, as `heat template-validate` runs it. CFN
    templates stop after the version (as on the Rust side)."""
    from oslo_config import cfg
    from heat.common import config  # noqa: F401  (registers the options)
    cfg.CONF([], project="heat")
    from heat.common import context as heat_context
    from heat.common import template_format
    from heat.engine import environment, resources, stack as heat_stack, template as heat_template
    from heat.engine.resources.openstack.heat import none_resource
    resources.initialise()
    generic = none_resource.NoneResource
    environment.ResourceRegistry.get_class_to_instantiate = lambda self, *a, **k: generic
    environment.ResourceRegistry.get_class = lambda self, *a, **k: generic
    ctx = heat_context.RequestContext(user_id="u", project_id="p", is_admin=False)

    def validate(text):
        tmpl = heat_template.Template(template_format.parse(text))
        if not type(tmpl).__name__.startswith("HOTemplate"):
            raise ValueError("not HOT")
        heat_stack.Stack(ctx, "oracle_stack", tmpl, strict_validate=False).validate(
            validate_res_tmpl_only=True)

    return validate


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

    cases = eval_cases()
    options = cases[0]["engine"]["options"] if cases else {}
    eval_engine = factory.YaqlFactory(allow_delegates=True).create(options=options)
    root = yaql.create_context(delegates=True)
    compiled = [(eval_engine(c["expr"]), c.get("data")) for c in cases]

    def eval_all():
        n = 0
        for statement, data in compiled:
            ctx = root.create_child_context()
            try:
                if data is None:
                    statement.evaluate(context=ctx)
                else:
                    statement.evaluate(data=data, context=ctx)
                n += 1
            except Exception:
                pass
        return n

    zips = zip_trees()
    if QUICK:
        zips = zips[: len(zips) // 4]
    from muranopkgcheck import manager

    def check_all():
        n = 0
        for path in zips:
            m = manager.Manager(path)
            m.load_plugins()
            n += len(m.validate())
        return n

    hot_texts = hot_templates()
    if QUICK:
        hot_texts = hot_texts[: len(hot_texts) // 4]
    heat_validate = heat_validator()

    def hot_all():
        n = 0
        for text in hot_texts:
            try:
                heat_validate(text)
                n += 1
            except Exception:
                pass
        return n

    timed = {
        "hot-validate": lambda: median_time(hot_all),
        "yaql-parse": lambda: median_time(parse_all),
        "class-load": lambda: median_time(load_all),
        "yaql-eval": lambda: median_time(eval_all),
        # murano-pkg-check takes seconds per run: at most 3 runs.
        "package-check": lambda: median_time(check_all, min(REPETITIONS, 3)),
    }
    # Murano's executor runs on Debian's python3-murano (yaql 2.0), not in
    # this virtualenv: engine.py runs under the system Python.
    python_engine = None
    engine_skipped = False

    def time_engine():
        nonlocal python_engine, engine_skipped
        murano_python = os.environ.get("MURANO_PYTHON", "/usr/bin/python3")
        engine_args = [murano_python, os.path.join(os.path.dirname(__file__), "engine.py"),
                       SHARED, str(REPETITIONS)] + (["--quick"] if QUICK else [])
        engine_run = subprocess.run(engine_args, capture_output=True, text=True)
        if engine_run.returncode != 0:
            engine_skipped = True
            return None
        python_engine = json.loads(engine_run.stdout.strip().splitlines()[-1])
        return python_engine["engine"]

    timed["engine"] = time_engine

    def time_rust(name):
        args = [RUST, SHARED, str(REPETITIONS), ZIPS, "--only", name] + (["--quick"] if QUICK else [])
        return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)

    # Row by row, each round timing Python then Rust.
    python, rust, ratios = {}, {}, {}
    for name in ROWS:
        if not wanted(name):
            continue
        samples = []
        for _ in range(ROUNDS):
            p = timed[name]()
            r = time_rust(name)
            rust.setdefault("allocator", r["allocator"])
            rust[f"{name}-count"] = r[f"{name}-count"]
            if p is None:
                break
            samples.append((p, r[name]))
        if samples:
            python[name] = statistics.median(p for p, _ in samples)
            rust[name] = statistics.median(r for _, r in samples)
            ratios[name] = sorted(p / r for p, r in samples)
    if engine_skipped:
        print("engine: python side skipped (python3-murano not importable by "
              f"{os.environ.get('MURANO_PYTHON', '/usr/bin/python3')}: apt-get install python3-murano)")

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}")
    print(f"python {platform.python_version()}, yaql 3.2.0, PyYAML {yaml.__version__}")
    print(f"rust allocator: {rust.get('allocator', 'not run')}")
    print(f"inputs: {len(expressions)} expressions, {len(class_files)} class files; {REPETITIONS} repetitions, medians"
          + (f"; {ROUNDS} rounds per row" if ROUNDS > 1 else ""))
    counts = []
    if wanted("yaql-parse"):
        counts.append(f"parsed: python {parse_all()}, rust {rust['yaql-parse-count']}")
    if wanted("class-load"):
        counts.append(f"loaded: python {load_all()}, rust {rust['class-load-count']}")
    if wanted("yaql-eval"):
        counts.append(f"evaluated: python {eval_all()}/{len(cases)}, rust {rust['yaql-eval-count']}")
    if wanted("package-check"):
        counts.append(f"packages: {len(zips)} zips, diagnostics python {check_all()}, "
                      f"rust {rust['package-check-count']} (rust checks one package at a time here)")
    if wanted("hot-validate"):
        counts.append(f"heat templates: {len(hot_texts)}, valid python {hot_all()}, "
                      f"rust {rust['hot-validate-count']}")
    print("; ".join(counts))
    if python_engine is not None:
        print(f"engine: {python_engine['tests']} tests, steps replayed python "
              f"{python_engine['engine-count']}, rust {rust['engine-count']} (Murano 14.0.0, yaql 2.0.0)")
    for name in ROWS:
        if name not in python:
            continue
        p, r = python[name], rust[name]
        if len(ratios[name]) == 1:
            print(f"ratio {name}: {p / r:.1f}x (python {p * 1000:.1f} ms, rust {r * 1000:.2f} ms)")
        else:
            each = " ".join(f"{x:.1f}" for x in ratios[name])
            print(f"ratio {name}: {statistics.median(ratios[name]):.1f}x, the median of "
                  f"{len(ratios[name])} rounds ({each}; python {p * 1000:.1f} ms, "
                  f"rust {r * 1000:.2f} ms, medians)")

main()
