#!/usr/bin/env python3
"""Claude Code's permission decisions as a floor for toolgate's.

For every call of every scenario in scenarios.jsonl (the Claude Code oracle's scenario format),
compare what Claude Code 2.1.197 decided (allow / ask / deny) with what `toolgate check`
decides on the same settings, mode and files, and flag every call toolgate is MORE PERMISSIVE
on: it allows what Claude Code asks about or denies, or asks where Claude Code denies.

    compare.py --oracle DIR                 run the oracle (root; DIR holds oracle.py), save
                                            expected.jsonl, compare
    compare.py --oracle-output FILE         compare with a saved `oracle.py --jsonl` output
    compare.py --expected expected.jsonl    compare with saved decisions, without Claude Code

A development tool: it needs the toolgate binary already built, and the oracle needs Claude
Code installed (the oracle's setup.sh). Never run in CI. Python 3, standard library only.

Exit status: 0 when every MORE PERMISSIVE call is listed in deliberate.json, 1 when one is not,
2 when the comparison could not be made.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RANK = {"allow": 2, "ask": 1, "deny": 0, "error": 0}  # how much each decision lets through
EDITORS = {"Edit": "file_path", "Write": "file_path", "NotebookEdit": "notebook_path"}
SAME, STRICTER, LOOSER, NA = "same", "toolgate stricter", "toolgate MORE PERMISSIVE", "not compared"


# ---------------------------------------------------------------- scenarios and saved results

def read_jsonl(path):
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            line = line.strip()
            if line and not line.startswith("#"):
                try:
                    out.append(json.loads(line))
                except ValueError as e:
                    sys.exit("compare.py: %s line %d is not JSON: %s" % (path, n, e))
    return out


def expected_from_oracle(records):
    """expected.jsonl records (one per scenario) from the oracle's output lines."""
    out = []
    for r in records:
        rec = {"id": r.get("id"), "claude_code_version": r.get("claude_code_version")}
        if "error" in r:
            rec["error"] = r["error"]
        rec["calls"] = [{"name": c.get("name"), "input": c.get("input"), "decision": c.get("decision"),
                         "detail": c.get("detail")} for c in r.get("results") or []]
        if any("inconsistent" in c for c in r.get("results") or []):
            rec["inconsistent"] = [c.get("inconsistent") for c in r["results"]]
        out.append(rec)
    return out


def run_oracle(oracle_dir, scenarios_path, raw_out):
    """Runs the oracle on every scenario (2 at a time); its output lines go to raw_out."""
    cmd = ["bash", "run-in-netns.sh", "python3", "oracle.py", "--jsonl", os.path.abspath(scenarios_path)]
    print("running the Claude Code oracle: %s (in %s)" % (" ".join(cmd), oracle_dir), file=sys.stderr)
    with open(raw_out, "w", encoding="utf-8") as fh:
        # exit status 1 means some scenario failed; those are reported per scenario below
        subprocess.run(cmd, cwd=oracle_dir, stdout=fh, check=False)
    return read_jsonl(raw_out)


# ---------------------------------------------------------------- the scenario's folders for toolgate

def subst(obj, tokens):
    """$CWD and $HOME as whole tokens replaced, as the oracle does (keys included)."""
    if isinstance(obj, str):
        out, i = [], 0
        while i < len(obj):
            for name in ("CWD", "HOME"):
                tok = "$" + name
                end = i + len(tok)
                if obj.startswith(tok, i) and not (end < len(obj) and (obj[end].isalnum() or obj[end] == "_")):
                    out.append(tokens[name])
                    i = end
                    break
            else:
                out.append(obj[i])
                i += 1
        return "".join(out)
    if isinstance(obj, list):
        return [subst(v, tokens) for v in obj]
    if isinstance(obj, dict):
        return {subst(k, tokens): subst(v, tokens) for k, v in obj.items()}
    return obj


def fixture_path(rel, proj, home):
    if rel.startswith("~/"):
        return os.path.join(home, rel[2:])
    if rel.startswith("$HOME/"):
        return os.path.join(home, rel[len("$HOME/"):])
    if rel.startswith("$CWD/"):
        rel = rel[len("$CWD/"):]
    return os.path.join(proj, rel)


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(value, fh, indent=2)


def build_folders(sc, root):
    """ROOT/proj and ROOT/home laid out as the oracle lays them out for Claude Code."""
    proj, home = os.path.join(root, "proj"), os.path.join(root, "home")
    os.makedirs(proj)
    os.makedirs(home)
    os.makedirs(os.path.join(root, "tmp"))
    tokens = {"CWD": proj, "HOME": home}
    write_json(os.path.join(proj, ".claude", "settings.json"), subst(sc.get("settings") or {}, tokens))
    if sc.get("local_settings") is not None:
        write_json(os.path.join(proj, ".claude", "settings.local.json"), subst(sc["local_settings"], tokens))
    if sc.get("user_settings") is not None:
        write_json(os.path.join(home, ".claude", "settings.json"), subst(sc["user_settings"], tokens))
    for d in sc.get("dirs") or []:
        os.makedirs(fixture_path(d, proj, home), exist_ok=True)
    for rel, text in (sc.get("files") or {}).items():
        p = fixture_path(rel, proj, home)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
    for link, target in (sc.get("symlinks") or {}).items():
        p = fixture_path(link, proj, home)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        os.symlink(home + target[1:] if target.startswith("~/") else subst(target, tokens), p)
    return proj, home, tokens


# ---------------------------------------------------------------- toolgate's side

class Toolgate:
    def __init__(self, binary, untrusted=False):
        self.binary = binary
        self.untrusted = untrusted

    def env(self, root, home):
        # nothing of the caller's configuration: no CLAUDE_CONFIG_DIR, no API key, no TOOLGATE_*
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TERM")}
        env.update({"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"),
                    "TMPDIR": os.path.join(root, "tmp"), "TOOLGATE_NO_PROMPT": "1"})
        return env

    def run(self, args, proj, env):
        p = subprocess.run([self.binary] + args, cwd=proj, env=env, capture_output=True, text=True,
                           timeout=120, stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr

    def scenario(self, sc, keep=False):
        """toolgate's decision for every call of the scenario: a list of dicts."""
        root = tempfile.mkdtemp(prefix="tgfloor-")
        try:
            proj, home, tokens = build_folders(sc, root)
            env = self.env(root, home)
            # Claude Code's oracle marks the project trusted; --untrusted leaves it untrusted for
            # toolgate, whose project settings then only tighten: still never looser.
            rc, out, err = (0, "", "") if self.untrusted else self.run(["-q", "trust", proj], proj, env)
            if rc != 0:
                return [{"behavior": "toolgate-failed", "message": "toolgate trust: " + (err or out).strip()}
                        for _ in sc["calls"]]
            common = ["-q", "--mode", sc.get("mode", "default")]
            extra = [str(a) for a in sc.get("extra_args") or []]
            for i, a in enumerate(extra[:-1]):
                if a == "--add-dir":
                    common += ["--add-dir", subst(extra[i + 1], tokens)]
            calls = [(c["name"], subst(c["input"], tokens)) for c in sc["calls"]]
            if sc.get("read_first"):
                # as the oracle does: Read every existing Edit/Write target first, in the same mode,
                # and keep what was read in a session dir the checks then load
                common += ["--session-dir", os.path.join(root, "session")]
                seen = set()
                for name, inp in calls:
                    fp = inp.get(EDITORS.get(name, "")) if isinstance(inp, dict) else None
                    if isinstance(fp, str) and os.path.isabs(fp) and os.path.isfile(fp) and fp not in seen:
                        seen.add(fp)
                        self.run(common + ["call", "Read", json.dumps({"file_path": fp})], proj, env)
            results = []
            for name, inp in calls:
                rc, out, err = self.run(common + ["check", name, json.dumps(inp), "--json"], proj, env)
                try:
                    d = json.loads(out)
                except ValueError:
                    d = {"behavior": "toolgate-failed", "message": (err or out).strip()[-400:]}
                results.append(scrub(d, proj, home, root))
            return results
        finally:
            if not keep:
                shutil.rmtree(root, ignore_errors=True)


def scrub(obj, proj, home, root):
    if isinstance(obj, str):
        return obj.replace(proj, "$CWD").replace(home, "$HOME").replace(root, "$ROOT")
    if isinstance(obj, list):
        return [scrub(v, proj, home, root) for v in obj]
    if isinstance(obj, dict):
        return {k: scrub(v, proj, home, root) for k, v in obj.items()}
    return obj


# ---------------------------------------------------------------- comparing

def verdict(cc, tg):
    """(verdict, note) for Claude Code's decision record and toolgate's answer."""
    if cc is None or cc.get("decision") not in RANK:
        return NA, "Claude Code gave no decision"
    if cc["decision"] == "error" and cc.get("detail", "").startswith("input rejected"):
        return NA, "Claude Code rejected the input before its permission check"
    b = tg.get("behavior")
    if b not in RANK:
        return NA, "toolgate gave no decision"
    a, t = RANK[cc["decision"]], RANK[b]
    if t == a:
        return SAME, "" if b == cc["decision"] else "%s/%s" % (cc["decision"], b)
    return (STRICTER, "") if t < a else (LOOSER, "")


def describe(call):
    inp = call.get("input") or {}
    if not isinstance(inp, dict):
        arg = json.dumps(inp)
    elif "command" in inp:
        arg = inp["command"]
    elif "file_path" in inp:
        arg = inp["file_path"]
    elif "url" in inp:
        arg = inp["url"]
    elif "pattern" in inp:
        arg = inp["pattern"] + (" in " + inp["path"] if inp.get("path") else "")
    else:
        arg = json.dumps(inp, ensure_ascii=False)
    return "%s: %s" % (call.get("name"), arg.replace("\n", "\\n"))


def rules_of(sc):
    parts = []
    for key, tag in (("user_settings", "user"), ("settings", "project"), ("local_settings", "local")):
        p = (sc.get(key) or {}).get("permissions") or {}
        for kind in ("allow", "ask", "deny"):
            if p.get(kind):
                parts.append("%s %s %s" % (tag, kind, ", ".join(p[kind])))
        for k, v in p.items():
            if k not in ("allow", "ask", "deny"):
                parts.append("%s %s=%s" % (tag, k, json.dumps(v)))
    return "; ".join(parts) or "no rules"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenarios", default=os.path.join(HERE, "scenarios.jsonl"))
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--oracle", metavar="DIR", default=os.environ.get("CC_ORACLE_DIR"),
                     help="the Claude Code oracle's folder (run it; default $CC_ORACLE_DIR)")
    src.add_argument("--oracle-output", metavar="FILE", help="a saved `oracle.py --jsonl` output")
    src.add_argument("--expected", metavar="FILE", help="Claude Code's saved decisions (expected.jsonl)")
    ap.add_argument("--save-oracle-output", metavar="FILE", help="where the oracle's raw output goes "
                    "(default: a file in the temp dir)")
    ap.add_argument("--save-expected", metavar="FILE", default=os.path.join(HERE, "expected.jsonl"),
                    help="where Claude Code's decisions are saved after an oracle run (default %(default)s)")
    ap.add_argument("--toolgate", default=os.environ.get("TOOLGATE_BIN", os.path.join(REPO, "target", "debug", "toolgate")))
    ap.add_argument("--deliberate", default=os.path.join(HERE, "deliberate.json"),
                    help="JSON object: \"ID\" or \"ID#N\" (call N, from 1) -> why the difference is deliberate")
    ap.add_argument("--only", metavar="PREFIX", action="append", help="only scenarios whose id starts so")
    ap.add_argument("--all", action="store_true", help="print every call, not only the differences")
    ap.add_argument("--json-out", metavar="FILE", help="write every compared call as JSON lines")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--untrusted", action="store_true",
                    help="leave each project untrusted for toolgate (Claude Code's runs trust it)")
    a = ap.parse_args()

    scenarios = read_jsonl(a.scenarios)
    if a.only:
        scenarios = [s for s in scenarios if any(str(s.get("id", "")).startswith(p) for p in a.only)]
    ids = [s.get("id") for s in scenarios]
    if None in ids or len(set(ids)) != len(ids):
        sys.exit("compare.py: every scenario needs an id of its own")
    if not os.access(a.toolgate, os.X_OK):
        print("compare.py: no toolgate binary at %s (build it, or pass --toolgate)" % a.toolgate, file=sys.stderr)
        sys.exit(2)
    with open(a.deliberate, encoding="utf-8") as fh:
        deliberate = json.load(fh)

    if a.expected:
        expected = {r["id"]: r for r in read_jsonl(a.expected)}
    else:
        if a.oracle_output:
            raw = read_jsonl(a.oracle_output)
        elif a.oracle:
            raw_out = a.save_oracle_output or os.path.join(tempfile.gettempdir(), "claude-code-floor-oracle.jsonl")
            if a.only:
                fd, subset = tempfile.mkstemp(suffix=".jsonl")
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.writelines(json.dumps(s, ensure_ascii=False) + "\n" for s in scenarios)
                raw = run_oracle(a.oracle, subset, raw_out)
                os.unlink(subset)
            else:
                raw = run_oracle(a.oracle, a.scenarios, raw_out)
            print("the oracle's output: %s" % raw_out, file=sys.stderr)
        else:
            print("compare.py: give --oracle DIR, --oracle-output FILE or --expected FILE", file=sys.stderr)
            sys.exit(2)
        recs = expected_from_oracle(raw)
        expected = {r["id"]: r for r in recs}
        if a.only and os.path.exists(a.save_expected):
            # a partial run replaces those scenarios' records and keeps the others
            merged = {r["id"]: r for r in read_jsonl(a.save_expected)}
            merged.update(expected)
            order = [s.get("id") for s in read_jsonl(a.scenarios)]
            recs = [merged[i] for i in order if i in merged]
        with open(a.save_expected, "w", encoding="utf-8") as fh:
            for r in recs:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
        print("Claude Code's decisions saved in %s" % a.save_expected, file=sys.stderr)

    tg = Toolgate(a.toolgate, untrusted=a.untrusted)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        answers = list(pool.map(tg.scenario, scenarios))

    rows, failed_scenarios = [], []
    for sc, tg_calls in zip(scenarios, answers):
        exp = expected.get(sc["id"])
        if exp is None or exp.get("error"):
            failed_scenarios.append((sc["id"], "not in the expected decisions" if exp is None else exp["error"]))
        cc_calls = (exp or {}).get("calls") or []
        for i, (call, t) in enumerate(zip(sc["calls"], tg_calls)):
            cc = cc_calls[i] if i < len(cc_calls) else None
            v, note = verdict(cc, t)
            key = "%s#%d" % (sc["id"], i + 1)
            rows.append({"id": sc["id"], "n": i + 1, "key": key, "call": describe(call), "mode": sc.get("mode", "default"),
                         "rules": rules_of(sc), "cc": cc and cc.get("decision"), "cc_detail": cc and cc.get("detail"),
                         "toolgate": t.get("behavior"), "toolgate_reason": t.get("reason"),
                         "toolgate_message": t.get("message"), "verdict": v, "note": note,
                         "deliberate": deliberate.get(key) or deliberate.get(sc["id"])})

    width = min(60, max([len(r["call"]) for r in rows] + [4]))
    idw = max([len(r["key"]) for r in rows] + [8])
    print("%-*s  %-*s  %-6s  %-8s  %s" % (idw, "scenario", width, "call", "Claude", "toolgate", "verdict"))
    for r in rows:
        if a.all or r["verdict"] != SAME:
            call = r["call"] if len(r["call"]) <= width else r["call"][:width - 1] + "…"
            extra = " (%s)" % r["note"] if r["note"] else ""
            if r["verdict"] == LOOSER and r["deliberate"]:
                extra += " [deliberate]"
            print("%-*s  %-*s  %-6s  %-8s  %s%s" % (idw, r["key"], width, call, r["cc"], r["toolgate"], r["verdict"], extra))

    looser = [r for r in rows if r["verdict"] == LOOSER]
    unlisted = [r for r in looser if not r["deliberate"]]
    counts = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    print()
    print("%d scenarios, %d calls: %s" % (len(scenarios), len(rows),
                                          ", ".join("%s %d" % (k, counts[k]) for k in (SAME, STRICTER, LOOSER, NA) if k in counts)))
    if looser:
        print()
        print("toolgate MORE PERMISSIVE than Claude Code:")
        for r in looser:
            reason = r["toolgate_reason"] or {}
            print("- %s  [%s; mode %s]\n    %s\n    Claude Code: %s; toolgate: %s (%s: %s)%s" % (
                r["key"], r["rules"], r["mode"], r["call"], r["cc"], r["toolgate"], reason.get("kind"),
                reason.get("detail"), "  DELIBERATE: " + r["deliberate"] if r["deliberate"] else ""))
    for sid, why in failed_scenarios:
        print("scenario %s: Claude Code gave no result: %s" % (sid, why))
    if a.json_out:
        with open(a.json_out, "w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    sys.exit(1 if unlisted else 0)


if __name__ == "__main__":
    main()
