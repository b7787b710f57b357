#!/usr/bin/env python3
"""Extract Apache Otava's own change-point tests into a fixture our port is checked against (stdlib only).

    python3 scripts/changepoints/otava-tests-extract.py --git GITDIR [--rev REV] [--out FILE]
    python3 scripts/changepoints/otava-tests-extract.py --dir CHECKOUT --commit SHA [--out FILE]

GITDIR is a (bare) git directory of apache/otava, read with `git show REV:path`; CHECKOUT is a plain
folder of its files. Default FILE: test/__fixtures__/changepoints/otava-tests.json.

Nothing here is typed in by hand: the test sources are parsed (Python's `ast`), and every input series,
parameter and expected value is the literal Otava's test asserts — defaults come from Otava's own
sources (`AnalysisOptions` in otava/series.py, the CLI's argparse defaults in otava/main.py). Each test
is interpreted statement by statement with a small evaluator that knows only the calls these tests make;
a test it cannot follow, or one that checks no change point of the t-test method (permutation tests
are random, importers, config), is listed under `notExtracted` with the reason, never silently dropped.

Case kinds (what test/analyze/changepoints-otava.test.ts runs for each):
- changePoints: compute_change_points(series, window_len, max_pvalue, min_magnitude) → expected indexes;
- detector:     ChangePointDetector + TTestSignificanceTester over the whole series (one window, no merge);
- significance: TTestSignificanceTester.change_point at a given index: significant or not, p bounds;
- analyzed:     Series(...).analyze(options) over several metrics, with optional appends, and the
                assertions Otava makes on it (groups by time, per-metric indexes, stable ranges,
                JSON-report statistics, change percents printed by the report/CLI).
"""
import argparse
import ast
import json
import os
import subprocess
import sys
import textwrap

LICENSE_NOTE = (
    "Series and expected values are taken from Apache Otava's tests (Apache License 2.0, "
    "Copyright The Apache Software Foundation); see test/__fixtures__/changepoints/NOTICE."
)
TEST_FILES = [
    "tests/change_point_divisive_test.py",
    "tests/analysis_test.py",
    "tests/series_test.py",
    "tests/tigerbeetle_test.py",
    "tests/report_test.py",
    "tests/csv_e2e_test.py",
    "tests/postgres_e2e_test.py",
    "tests/graphite_e2e_test.py",
]
# Why a test that exercises change points yields no case (anything else unparsed is reported as such).
SKIP_REASONS = {
    "test_calculator_candidate": "compares Otava's fast Q̂ with its own slow re-computation; asserts no literal",
    "test_permutation_calculation": "permutation significance tester (random permutations), not the t-test method",
    "test_permutation_test": "permutation significance tester (random permutations), not the t-test method",
    "test_single_series_original": "original e-divisive with permutation tests (compute_change_points_orig)",
    "test_orig_edivisive": "original e-divisive with permutation tests; asserts only len >= 0",
    "test_change_point_detection_performance": "random series, asserts CPU time only",
    "test_get_intervals_requires_sorted_change_points": "interval bookkeeping, no series",
    "test_validate": "append() argument validation; asserts no change point",
    "test_can_append": "append() argument validation; asserts no change point",
    "test_fill_missing": "fill_missing of None values; no change point",
    "test_analyze_csv_multiple_branches_without_branch_flag_fails": "CLI error message for a missing --branch",
    "test_analyze_csv_branch_flag_without_branch_column_fails": "CLI error message for a missing branch column",
}
# Output sizes a single test may produce: the sources are trusted, but bound them anyway.
MAX_SERIES = 100_000
MAX_CASES = 1_000


class Unsupported(Exception):
    """A statement this evaluator does not model; the test is then listed with the reason."""


def die(msg):
    sys.exit("otava-tests-extract: " + msg)


class Source:
    def __init__(self, git_dir, rev, folder):
        self.git_dir, self.rev, self.folder = git_dir, rev, folder

    def read(self, path):
        if self.folder is not None:
            with open(os.path.join(self.folder, path), encoding="utf-8") as f:
                return f.read()
        out = subprocess.run(
            ["git", "--git-dir", self.git_dir, "show", f"{self.rev}:{path}"],
            capture_output=True, text=True, timeout=60,
        )
        if out.returncode != 0:
            die(f"cannot read {path} at {self.rev} from {self.git_dir}: {out.stderr.strip()}")
        return out.stdout

    def commit(self, given):
        if given:
            return given
        repo = ["--git-dir", self.git_dir] if self.folder is None else ["-C", self.folder]
        out = subprocess.run(["git", *repo, "rev-parse", self.rev or "HEAD"], capture_output=True, text=True, timeout=60)
        if out.returncode != 0 or len(out.stdout.strip()) != 40:
            die("cannot tell the Otava commit: pass --commit SHA")
        return out.stdout.strip()


# ---------- Otava's defaults, read from its sources ----------

def analysis_option_defaults(series_py):
    """self.X = literal assignments in AnalysisOptions.__init__ (otava/series.py)."""
    for node in ast.walk(ast.parse(series_py)):
        if isinstance(node, ast.ClassDef) and node.name == "AnalysisOptions":
            for fn in node.body:
                if isinstance(fn, ast.FunctionDef) and fn.name == "__init__":
                    return {
                        st.targets[0].attr: ast.literal_eval(st.value)
                        for st in fn.body
                        if isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Attribute)
                    }
    die("AnalysisOptions.__init__ not found in otava/series.py")


def cli_defaults(main_py):
    """argparse defaults of the analysis options (dest pvalue, magnitude, window) in otava/main.py."""
    out = {}
    for node in ast.walk(ast.parse(main_py)):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument":
            kw = {k.arg: k.value for k in node.keywords}
            if "dest" in kw and "default" in kw:
                dest = ast.literal_eval(kw["dest"])
                if dest in ("pvalue", "magnitude", "window"):
                    out[dest] = ast.literal_eval(kw["default"])
    if set(out) != {"pvalue", "magnitude", "window"}:
        die(f"CLI defaults not all found in otava/main.py: {out}")
    return {"window": out["window"], "maxP": out["pvalue"], "minMagnitude": out["magnitude"]}


def options_json(opts):
    return {"window": opts["window_len"], "maxP": opts["max_pvalue"], "minMagnitude": opts["min_magnitude"]}


# ---------- Objects the evaluator models ----------

class Opts(dict):
    """AnalysisOptions(): Otava's defaults, attributes set by the test."""


class Analyzed:
    """series.analyze(options); `appends` collects AnalyzedSeries.append(new_data=...) calls in order."""

    def __init__(self, data, opts):
        self.data, self.opts, self.appends = data, opts, []


class Ref:
    """Something a test asserts on: `kind` of case `owner` (after `step` appends), with details in `kw`."""

    def __init__(self, kind, owner, step=0, **kw):
        self.kind, self.owner, self.step, self.kw = kind, owner, step, kw

    def sub(self, kind, **kw):
        return Ref(kind, self.owner, self.step, **{**self.kw, **kw})


class Tester:
    def __init__(self, max_p):
        self.max_p = max_p


class Detector:
    def __init__(self, tester):
        self.tester = tester


class Module:
    """Module-level constants, literal-returning helpers, pytest fixtures and tests of one test file."""

    def __init__(self, src):
        self.tree = ast.parse(src)
        self.constants, self.helpers, self.fixtures, self.tests = {}, {}, {}, []
        for node in self.tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                v = node.value
                if isinstance(v, ast.Call) and getattr(v.func, "attr", None) == "array":  # np.array(literal)
                    v = v.args[0]
                try:
                    self.constants[node.targets[0].id] = ast.literal_eval(v)
                except ValueError:
                    pass
            elif isinstance(node, ast.FunctionDef):
                if any("fixture" in ast.unparse(d) for d in node.decorator_list):
                    self.fixtures[node.name] = node
                elif node.name.startswith("test_"):
                    self.tests.append(node)
                else:
                    ret = [st for st in node.body if isinstance(st, ast.Return)]
                    try:
                        self.helpers[node.name] = ast.literal_eval(ret[0].value) if ret else None
                    except ValueError:
                        pass


class Evaluator:
    """Interprets one test function (with its fixtures) and collects the cases its assertions make."""

    def __init__(self, module, defaults):
        self.module, self.defaults = module, defaults
        self.env = {}
        self.cases = {}  # id(owner) → case being built; assertions are attached as they come

    def new_case(self, case, owner=None):
        case["assertions"] = []
        self.cases[id(owner if owner is not None else case)] = (case, owner)
        return case

    def attach(self, ref, assertion):
        if not isinstance(ref, Ref) or id(ref.owner) not in self.cases:
            raise Unsupported("assertion on something that is not a change-point result")
        case, owner = self.cases[id(ref.owner)]
        if isinstance(owner, Analyzed):
            assertion["afterAppends"] = ref.step
        case["assertions"].append(assertion)

    # ---- expressions ----
    def value(self, node):
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
        if isinstance(node, ast.Name):
            for scope in (self.env, self.module.constants):
                if node.id in scope:
                    return scope[node.id]
            if node.id in self.module.fixtures:
                return self.fixture(node.id)
            raise Unsupported(f"unknown name {node.id}")
        if isinstance(node, ast.Dict):
            return {self.value(k): self.value(v) for k, v in zip(node.keys, node.values)}
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.value(x) for x in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.ListComp):  # [c.index for c in X]
            it = self.value(node.generators[0].iter)
            if isinstance(it, Ref) and isinstance(node.elt, ast.Attribute) and node.elt.attr == "index":
                return it.sub("indexes", of=it.kind)
            raise Unsupported("list comprehension")
        raise Unsupported(type(node).__name__)

    def attribute(self, node):
        base = self.value(node.value)
        attr = node.attr
        if isinstance(base, Analyzed) and attr == "change_points_by_time":
            return Ref("groups", base, len(base.appends))
        if isinstance(base, Analyzed) and attr == "change_points":
            return Ref("byMetric", base, len(base.appends))
        if isinstance(base, Opts):
            return base[attr]
        if isinstance(base, Ref):
            if base.kind == "group" and attr == "index":
                return base.sub("groupIndex")
            if base.kind == "group" and attr == "changes":
                return base.sub("groupChanges")
            if base.kind == "change" and attr == "metric":
                return base.sub("changeMetric")
            if base.kind == "cp" and attr == "stats":
                return base
            if base.kind == "cp" and attr == "pvalue":
                return base.sub("pvalue")
        raise Unsupported(f"attribute {attr}")

    def subscript(self, node):
        base, key = self.value(node.value), self.value(node.slice)
        if isinstance(base, Ref) and base.kind == "byMetric":
            return base.sub("metricCps", metric=key)
        if isinstance(base, Ref) and base.kind == "groups":
            return base.sub("group", group=key)
        if isinstance(base, Ref) and base.kind == "groupChanges":
            return base.sub("change", change=key)
        if isinstance(base, (list, dict, tuple)):
            return base[key]
        raise Unsupported("subscript")

    def call(self, node):
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        method = isinstance(f, ast.Attribute)
        kw = {k.arg: k.value for k in node.keywords}
        args = lambda: [self.value(a) for a in node.args]  # noqa: E731 (evaluated only where needed)
        if method and name == "array":
            return list(args()[0])
        if method and name == "copy":
            return list(self.value(f.value))
        if name == "len":
            return len(args()[0])
        if name == "range":
            return list(range(*args()))
        if name == "list":
            return list(args()[0])
        if not method and name in self.module.helpers:
            return self.module.helpers[name]
        if name == "Series":
            return {k: list(v) for k, v in self.value(kw["data"]).items()}
        if name == "AnalysisOptions":
            return Opts(self.defaults)
        if method and name == "analyze":
            data = self.value(f.value)
            given = args() or ([self.value(kw["options"])] if "options" in kw else [])
            a = Analyzed(data, dict(given[0] if given else self.defaults))
            self.new_case({"kind": "analyzed"}, a)
            return a
        if name == "compute_change_points":
            p = {k: ast.literal_eval(v) for k, v in kw.items()}
            case = self.new_case({"kind": "changePoints", "series": list(args()[0]), "window": p["window_len"],
                                  "maxP": p["max_pvalue"], "minMagnitude": p.get("min_magnitude", 0.0)})
            return (Ref("cps", case), Ref("weak", case))
        if name == "TTestSignificanceTester":
            return Tester(args()[0] if node.args else ast.literal_eval(kw["max_pvalue"]))
        if name == "ChangePointDetector":
            tester = self.value(kw["significance_tester"])
            if not isinstance(tester, Tester):
                raise Unsupported("a detector with another significance tester")
            return Detector(tester)
        if method and name == "get_change_points":
            det = self.value(f.value)
            case = self.new_case({"kind": "detector", "series": list(self.value(kw["series"])), "maxP": det.tester.max_p})
            return Ref("cps", case)
        if name == "CandidateChangePoint":
            return ("candidate", ast.literal_eval(kw["index"]))
        if method and name == "change_point":
            tester, (cand, series) = self.value(f.value), args()[:2]
            case = self.new_case({"kind": "significance", "series": list(series), "index": cand[1],
                                  "maxP": tester.max_p})
            return Ref("cp", case)
        if method and name == "is_significant":
            return args()[0].sub("significant")
        if method and name == "get_stable_range":
            a = self.value(f.value)
            metric, index = args()
            return Ref("stableRange", a, len(a.appends), metric=metric, index=index)
        if method and name == "to_json":
            return "rendered JSON"  # `assert cpjson` checks only that something was rendered
        if name == "Report":  # Report(series, change_points): what it prints comes from the groups
            return self.value(node.args[1])
        if method and name == "produce_report":
            groups = self.value(f.value)
            kind = ast.unparse(node.args[1]) if len(node.args) > 1 else ""
            return groups.sub("jsonReport" if kind.endswith("JSON") else "text")
        if method and name == "loads":  # json.loads(report output)
            return self.value(node.args[0])
        raise Unsupported(f"call {name}")

    def fixture(self, name):
        """A pytest fixture's value, computed once per test as pytest does."""
        key = "fixture:" + name
        if key not in self.env:
            for st in self.module.fixtures[name].body:
                if isinstance(st, ast.Return):
                    self.env[key] = self.value(st.value)
                    break
                self.statement(st)
        return self.env[key]

    # ---- statements ----
    def run(self, fn):
        for arg in fn.args.args:
            if arg.arg in self.module.fixtures:
                self.env[arg.arg] = self.fixture(arg.arg)
        for st in fn.body:
            self.statement(st)

    def statement(self, st):
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
            return  # docstring
        if isinstance(st, ast.Assign):
            target = st.targets[0]
            if isinstance(target, ast.Attribute):  # options.min_magnitude = 0.2
                obj = self.value(target.value)
                if not isinstance(obj, Opts):
                    raise Unsupported("attribute assignment")
                obj[target.attr] = self.value(st.value)
            elif isinstance(target, ast.Tuple):
                for t, v in zip(target.elts, self.value(st.value)):
                    self.env[t.id] = v
            else:
                self.env[target.id] = self.value(st.value)
            return
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            f = st.value.func
            if isinstance(f, ast.Name) and f.id == "print":
                return
            if isinstance(f, ast.Attribute) and f.attr == "append":
                a = self.value(f.value)
                new_data = next(k.value for k in st.value.keywords if k.arg == "new_data")
                if isinstance(a, Analyzed):
                    a.appends.append({k: list(v) for k, v in self.value(new_data).items()})
                    return
            raise Unsupported("expression statement")
        if isinstance(st, ast.Assert):
            return self.assertion(st.test)
        if isinstance(st, ast.For):
            return self.magnitude_loop(st)
        raise Unsupported(type(st).__name__)

    def assertion(self, test):
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):  # assert not tester.is_significant(cp)
            return self.attach(self.value(test.operand), {"significant": False})
        if isinstance(test, ast.Call) and ast.unparse(test.func).startswith("isinstance"):
            return None  # the type of a rendered report
        if isinstance(test, (ast.Call, ast.Name)):
            v = self.value(test)
            if v == "rendered JSON":
                return None
            return self.attach(v, {"significant": True})
        if not isinstance(test, ast.Compare):
            raise Unsupported("assert form")
        if len(test.ops) == 2 and all(isinstance(o, ast.Lt) for o in test.ops):  # lo < cp.stats.pvalue < hi
            ref = self.value(test.comparators[0])
            return self.attach(ref, {"pGreaterThan": self.value(test.left), "pLessThan": self.value(test.comparators[1])})
        op, left_node = test.ops[0], test.left
        if "output" in ast.unparse(left_node) and "len(" in ast.unparse(left_node):
            return None  # counts the report's output lines: rendering
        right = self.value(test.comparators[0])
        if isinstance(op, ast.In):  # "-11.0%" in output
            text, holder = self.value(left_node), right
            if isinstance(holder, Ref) and holder.kind == "text" and str(text).endswith("%"):
                return self.attach(holder, {"changePercentShown": text})
            if isinstance(holder, Ref) and holder.kind == "text":
                return None  # names and values printed: rendering, not change points
            raise Unsupported("'in' assertion")
        if isinstance(left_node, ast.Call) and isinstance(left_node.func, ast.Name) and left_node.func.id == "len":
            inner = self.value(left_node.args[0])
            if isinstance(inner, Ref) and inner.kind == "groups":
                return self.attach(inner, {"groupCount": right} if isinstance(op, ast.Eq) else
                                   {"groupCountAtLeast": right} if isinstance(op, ast.GtE) else None)
            raise Unsupported("len() assertion")
        left = self.value(left_node)
        if not isinstance(op, ast.Eq) or not isinstance(left, Ref):
            raise Unsupported("comparison")
        if left.kind == "indexes" and left.kw.get("of") == "metricCps":
            return self.attach(left, {"metric": left.kw["metric"], "indexes": right})
        if left.kind == "indexes":
            return self.attach(left, {"indexes": right})
        if left.kind == "groupIndex":
            return self.attach(left, {"group": left.kw["group"], "index": right})
        if left.kind == "changeMetric":
            return self.attach(left, {"group": left.kw["group"], "change": left.kw["change"], "metric": right})
        if left.kind == "stableRange":
            return self.attach(left, {"stableRange": {"metric": left.kw["metric"], "index": left.kw["index"],
                                                      "range": list(right)}})
        if left.kind == "jsonReport":
            return self.json_report(left, right)
        raise Unsupported(f"assertion on {left.kind}")

    def json_report(self, ref, expected):
        """Otava's JSON report: per group and change its index, metric and statistics as printed (%f)."""
        (groups,) = expected.values()
        self.attach(ref, {"groupCount": len(groups)})
        for g, group in enumerate(groups):
            for c, change in enumerate(group["changes"]):
                stats = {k: v for k, v in change.items() if k not in ("metric", "index", "time")}
                self.attach(ref, {"group": g, "change": c, "metric": change["metric"], "index": change["index"],
                                  "statsPrinted": stats})

    def magnitude_loop(self, st):
        """for change_point in X: for change in change_point.changes: assert change.magnitude() >= m"""
        groups = self.value(st.iter)
        inner = st.body[0]
        test = inner.body[0].test if isinstance(inner, ast.For) and isinstance(inner.body[0], ast.Assert) else None
        if not (isinstance(groups, Ref) and groups.kind == "groups" and isinstance(test, ast.Compare)
                and isinstance(test.ops[0], ast.GtE) and "magnitude" in ast.unparse(test.left)):
            raise Unsupported("loop")
        self.attach(groups, {"allMagnitudesAtLeast": self.value(test.comparators[0])})

    def finish(self, source):
        out = []
        for case, owner in self.cases.values():
            if not case["assertions"]:
                continue
            if isinstance(owner, Analyzed):
                case["metrics"] = owner.data
                case["options"] = options_json(owner.opts)
                if owner.appends:
                    case["appends"] = owner.appends
            out.append(case)
        for k, case in enumerate(out):
            case["source"] = source if len(out) == 1 else f"{source} #{k + 1}"
        return out


# ---------- Otava's CLI table (e2e tests) ----------

def parse_cli_table(text):
    """Otava's `analyze` table: metrics' columns, rows, and the change blocks (····, ±x.x%) between rows."""
    lines = [ln for ln in textwrap.dedent(text).split("\n") if ln.strip()]
    header, dashes = lines[0], lines[1]
    # A template formatted with the timestamps at run time: "{}" stands for the time column's full width.
    lines = [ln.replace("{}", "t" * len(dashes.split(" ")[0])) for ln in lines]
    spans, i = [], 0
    while i < len(dashes):
        if dashes[i] == "-":
            j = i
            while j < len(dashes) and dashes[j] == "-":
                j += 1
            spans.append((i, j))
            i = j
        else:
            i += 1
    names = [header[a:b].strip() for a, b in spans]
    rows, changes = [], []
    for ln in lines[2:]:
        s = ln.strip()
        if set(s) <= {"·", " "}:
            continue
        if s.endswith("%") and " " not in s:
            end = len(ln.rstrip())
            col = next(k for k, (a, b) in enumerate(spans) if a < end <= b)
            changes.append({"metric": names[col], "index": len(rows), "percent": s})
            continue
        rows.append([ln[a:b].strip() for a, b in spans])
    return names, rows, changes


def numeric(cell):
    try:
        return float(cell) if "." in cell or "e" in cell.lower() else int(cell)
    except ValueError:
        return None


def string_assigned(fn, var):
    """The string literal assigned to `var` in fn (through textwrap.dedent and .format)."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == var:
            v = node.value
            while isinstance(v, ast.Call):
                v = v.args[0] if not isinstance(v.func, ast.Attribute) or v.func.attr == "dedent" else v.func.value
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                return textwrap.dedent(v.value)
    return None


def config_list(config, key):
    """`key: [a, b]` of an otava.yaml (the inline list form these configs use)."""
    for ln in config.split("\n"):
        st = ln.strip()
        if st.startswith(key + ":") and "[" in st:
            return [x.strip() for x in st.split("[", 1)[1].split("]")[0].split(",") if x.strip()]
    return None


def test_config(fn, source):
    """The otava.yaml the e2e test runs with: its own config_content, or the file OTAVA_CONFIG names."""
    text = string_assigned(fn, "config_content")
    if text is not None:
        return text
    for node in ast.walk(fn):
        if isinstance(node, ast.keyword) and node.arg == "OTAVA_CONFIG":
            v = node.value
            while isinstance(v, ast.Call):  # str(Path("...")) or Path("...")
                v = v.args[0]
            return source.read(v.value)
    return None


def cli_table_case(fn, source, cli):
    """e2e test whose expected stdout is Otava's `analyze` table: it shows every value analysed (oldest
    first, as imported) and every change point; metrics are the columns after time and the attributes."""
    text = string_assigned(fn, "expected_output")
    config = test_config(fn, source) if text is not None else None
    if text is None or config is None:
        return None
    names, rows, changes = parse_cli_table(text)
    attributes = config_list(config, "attributes") or []
    metrics = {}
    for k, n in enumerate(names):
        if k == 0 or n in attributes:
            continue
        col = [numeric(r[k]) for r in rows]
        if any(v is None for v in col):
            die(f"column {n} of the expected table is not numeric")
        metrics[n] = col
    literal = literal_metric_lists(fn)
    for (n, col), values in zip(metrics.items(), literal):
        if col != values:
            die(f"table column {n} differs from the test's data literal")
    return {"kind": "analyzed", "metrics": metrics, "options": cli,
            "seriesFrom": "the test's data literals, checked against its expected CLI table" if literal
            else "the expected CLI table (it lists every value analysed)",
            "assertions": [{"changes": [{"metric": c["metric"], "index": c["index"]} for c in changes]},
                           *({"changePercentShown": c["percent"]} for c in changes)]}


def csv_rows_case(fn, cli):
    """csv_e2e test that writes `data_points` rows and runs `otava analyze ... --branch B`: the series are the
    rows of branch B in file order; it asserts a change is shown ("%" in the output; "+" is vacuous, the
    time column prints +0000)."""
    env = {}
    header = branch = None
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "data_points" \
                and isinstance(node.value, ast.List):
            rows = []
            for t in node.value.elts:
                rows.append([None if isinstance(e, ast.BinOp) else ast.literal_eval(e) for e in t.elts])
            env["rows"] = rows
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "writerow" and isinstance(node.args[0], ast.List) \
                and all(isinstance(e, ast.Constant) for e in node.args[0].elts):
            header = ast.literal_eval(node.args[0])
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "cmd":
            argv = ast.literal_eval(node.value)
            if "--branch" in argv:
                branch = argv[argv.index("--branch") + 1]
    shows = [n for n in ast.walk(fn) if isinstance(n, ast.Compare) and isinstance(n.ops[0], ast.In)
             and isinstance(n.left, ast.Constant) and n.left.value == "%"]
    if "rows" not in env or header is None or branch is None or not shows:
        return None
    mine = [r for r in env["rows"] if r[2] == branch]
    config = string_assigned(fn, "config_content") or ""
    metrics = {m: [r[header.index(m)] for r in mine] for m in config_list(config, "metrics")}
    return {"kind": "analyzed", "metrics": metrics, "options": cli,
            "seriesFrom": f"the test's data_points rows of branch {branch}",
            "assertions": [{"groupCountAtLeast": 1}]}


def graphite_case(module, cli):
    """graphite_e2e: _seed_graphite_data sends each metric's list newest first (timestamp start − i·60), so the
    series Otava analyses are those lists reversed; the test asserts the change percents it prints."""
    seed = next(f for f in module.tree.body if isinstance(f, ast.FunctionDef) and f.name == "_seed_graphite_data")
    metrics = {}
    for node in seed.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "").endswith("_values"):
            metrics[node.targets[0].id[: -len("_values")]] = list(reversed(ast.literal_eval(node.value)))
    return metrics


# ---------- main ----------

def literal_metric_lists(fn):
    """metrics1 = [...], metrics2 = [...] literals of a CSV e2e test (in order)."""
    return [ast.literal_eval(n.value) for n in fn.body
            if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name) and n.targets[0].id.startswith("metrics")]


def percent_asserts(fn):
    """Strings ending in % that the test asserts are `in output`."""
    return [n.left.value for n in ast.walk(fn) if isinstance(n, ast.Compare) and isinstance(n.ops[0], ast.In)
            and isinstance(n.left, ast.Constant) and str(n.left.value).endswith("%") and len(n.left.value) > 1]


def warnings_are_errors(fn):
    return any(isinstance(d, ast.Call) and getattr(d.func, "attr", None) == "filterwarnings"
               and [ast.literal_eval(a) for a in d.args] == ["error"] for d in fn.decorator_list)


def e2e_case(fn, module, source, cli):
    """CLI end-to-end tests: the expected table, CSV rows of one branch, or Graphite's seeded data."""
    case = cli_table_case(fn, source, cli) or csv_rows_case(fn, cli)
    if case is None and "_seed_graphite_data" in ast.unparse(fn):
        case = {"kind": "analyzed", "metrics": graphite_case(module, cli), "options": cli,
                "seriesFrom": "_seed_graphite_data's lists, reversed (it sends them newest first)",
                "assertions": [{"changePercentShown": p} for p in percent_asserts(fn)]}
    return case


def extract(source):
    defaults = analysis_option_defaults(source.read("otava/series.py"))
    cli = cli_defaults(source.read("otava/main.py"))
    cases, skipped = [], []
    for path in TEST_FILES:
        module = Module(source.read(path))
        for fn in module.tests:
            name = f"{path}::{fn.name}"
            body = ast.unparse(fn)
            if fn.name in SKIP_REASONS:
                skipped.append({"source": name, "reason": SKIP_REASONS[fn.name]})
                continue
            if '"otava", "analyze"' in body.replace("'", '"'):
                case = e2e_case(fn, module, source, cli)
                if case is None:
                    skipped.append({"source": name, "reason": "CLI test the extractor cannot follow"})
                else:
                    cases.append({**case, "source": name})
                continue
            if not any(w in body for w in ("change_point", "analyze", "produce_report")):
                skipped.append({"source": name, "reason": "checks no change point"})
                continue
            ev = Evaluator(module, defaults)
            try:
                ev.run(fn)
            except (Unsupported, KeyError, IndexError, AttributeError) as e:
                skipped.append({"source": name, "reason": f"not modelled by the extractor: {e}"})
                continue
            got = ev.finish(name)
            if not got:
                skipped.append({"source": name, "reason": "asserts nothing about change points"})
            if warnings_are_errors(fn):
                # Otava runs it with warnings as errors (a division by zero fails it): ours must stay finite.
                for c in got:
                    c["assertions"].append({"statsFinite": True})
            cases += got
    if len(cases) > MAX_CASES or any(len(c.get("series", [])) > MAX_SERIES for c in cases):
        die("more cases or longer series than expected: check the sources")
    return cases, skipped


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--git", help="git directory of apache/otava (bare is fine)")
    g.add_argument("--dir", help="a folder with apache/otava's files")
    ap.add_argument("--rev", default="HEAD", help="revision to read with --git (default HEAD)")
    ap.add_argument("--commit", help="the commit the files are from (default: resolved from git)")
    ap.add_argument("--out", default=os.path.join(here, "../../test/__fixtures__/changepoints/otava-tests.json"))
    a = ap.parse_args()
    source = Source(a.git, a.rev, a.dir)
    commit = source.commit(a.commit)
    cases, skipped = extract(source)
    doc = {
        "about": "Apache Otava's own change-point tests: each case's input series, parameters and the values its "
                 "test asserts, parsed from the test sources by scripts/changepoints/otava-tests-extract.py",
        "repository": "apache/otava",
        "commit": commit,
        "license": LICENSE_NOTE,
        "cases": cases,
        "notExtracted": skipped,
    }
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{len(cases)} cases, {len(skipped)} tests not extracted → {os.path.relpath(a.out)}", file=sys.stderr)


if __name__ == "__main__":
    main()
