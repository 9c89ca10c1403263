"""benchmarks/RESULTS.md from a run's records: one table per suite, medians and ratios to tapegrad.

A record is what the harness writes per workload (one JSON line of --json FILE): its title
("group: name"), its group (the suite), per framework a status and, when measured, median_ns. An
environment record ({"environment": {...}}, written first by every run) gives the header. Only the
standard library is used, so that write_results.py runs without NumPy or any framework.
"""
import json

FRAMEWORKS = ("tapegrad", "numpy", "torch", "tensorflow", "jax")
NAMES = {"tapegrad": "tapegrad", "numpy": "NumPy", "torch": "PyTorch", "tensorflow": "TensorFlow", "jax": "JAX"}


def read_json_lines(path):
    """(environment of the last run or {}, the latest record per workload title in first-seen order)."""
    env, records = {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            rec = json.loads(line)
            if "environment" in rec:
                env = rec["environment"]
            elif "workload" in rec:
                records.pop(rec["workload"], None)  # a later run's figure replaces an earlier one, at its place
                records[rec["workload"]] = rec
    return env, list(records.values())


def fmt_time(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return "%.3g %s" % (ns / scale, unit)
    return "%.3g ns" % ns


def _group(rec):
    return rec.get("group") or rec["workload"].split(":", 1)[0]


def _cell(result, ref):
    status = result.get("status", "ok")
    if status != "ok":
        return "n/a" if status == "n/a" else "skipped" if status.startswith("skipped") else "error"
    text = fmt_time(result["median_ns"])
    if ref is not None and result is not ref:
        text += " (%.2fx)" % (result["median_ns"] / ref["median_ns"])
    if result.get("check", "ok") != "ok":
        text += " CHECK FAILED"
    return text


def suite_table(records):
    """Markdown table of one suite's records: a row per workload, a column per framework that ran."""
    present = [fw for fw in FRAMEWORKS
               if any(r["framework"] == fw and not r.get("status", "ok").startswith("skipped")
                      for rec in records for r in rec["results"])]
    lines = ["| workload | %s |" % " | ".join(NAMES[fw] for fw in present),
             "|---|" + "---|" * len(present)]
    notes = []
    for rec in records:
        by_fw = {r["framework"]: r for r in rec["results"]}
        measured = [by_fw[fw] for fw in present if fw in by_fw and by_fw[fw].get("status", "ok") == "ok"]
        ref = by_fw.get("tapegrad") if by_fw.get("tapegrad", {}).get("status") == "ok" else \
            (measured[0] if measured else None)
        name = rec["workload"].split(": ", 1)[-1]
        cells = [_cell(by_fw[fw], ref) if fw in by_fw else "-" for fw in present]
        if ref is not None and ref["framework"] != "tapegrad":
            notes.append("%s: no tapegrad figure, ratios against %s." % (name, NAMES[ref["framework"]]))
        lines.append("| %s | %s |" % (name.replace("|", "\\|"), " | ".join(cells)))
        if rec.get("other_load") and rec["other_load"] > 0.05:
            notes.append("%s: other processes used %.0f%% of the CPUs meanwhile (times inflated)."
                         % (name, 100 * rec["other_load"]))
        for fw in present:
            r = by_fw.get(fw)
            if r and r.get("status", "ok").startswith("error"):
                notes.append("%s, %s: %s" % (name, NAMES[fw], r["status"]))
    return "\n".join(lines), notes


def _environment_lines(env):
    if not env:
        return ["Environment: not recorded (a JSON file from before the harness wrote it)."]
    out = []
    if env.get("cpu"):
        out.append("- CPU: %s, %s CPUs; kernel ISA %s" % (env["cpu"], env.get("cpus", "?"), env.get("isa", "?")))
    out.append("- threads: %s" % env.get("threads", "?"))
    if env.get("load_average"):
        out.append("- load average at start: %s" % " ".join("%.2f" % v for v in env["load_average"]))
    versions = env.get("frameworks", {})
    if versions:
        out.append("- " + "; ".join("%s %s" % (NAMES.get(fw, fw), v) for fw, v in versions.items()))
    if env.get("blas"):
        out.append("- BLAS: %s" % env["blas"])
    run = ["Python %s" % env["python"]] if env.get("python") else []
    if env.get("commit"):
        run.append("commit %s" % env["commit"])
    if env.get("date"):
        run.append(env["date"])
    if env.get("command"):
        run.append("`%s`" % env["command"])
    if run:
        out.append("- run: " + ", ".join(run))
    if env.get("quick") or "--quick" in (env.get("command") or "").split():
        out.append("- a `--quick` run (a fraction of a second of samples per workload): indicative figures only")
    elif env.get("budget"):
        out.append("- %g s of samples per workload" % env["budget"])
    if env.get("warnings"):
        out.extend("- WARNING: %s" % w for w in env["warnings"])
    return out


def results_markdown(env, records):
    """The whole RESULTS.md text."""
    out = ["# Benchmark results", "",
           "Written by the harness from one run (`run_all.py --results FILE`, or `write_results.py` from the",
           "JSON lines of `run_all.py --json FILE`); see `README.md` in this folder for how it measures. Each",
           "cell is the median time per call; in brackets, that time over tapegrad's (above 1: tapegrad is",
           "faster). Frameworks that did not import are left out. Rerun and rewrite rather than edit: the",
           "history is in git.", "",
           "## Environment", ""]
    out += _environment_lines(env)
    groups = {}
    for rec in records:
        groups.setdefault(_group(rec), []).append(rec)
    for group, recs in groups.items():
        table, notes = suite_table(recs)
        out += ["", "## %s" % group, "", table]
        if notes:
            out += [""] + ["- %s" % n for n in notes]
    return "\n".join(out) + "\n"


def write_results(json_path, out_path):
    env, records = read_json_lines(json_path)
    if not records:
        raise SystemExit("write_results: no workload records in %s" % json_path)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(results_markdown(env, records))
    return out_path
