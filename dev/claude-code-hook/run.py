#!/usr/bin/env python3
"""Claude Code 2.1.197 alone and with `toolgate hook` installed, on the same scenarios.

Every scenario of scenarios.jsonl runs twice through the Claude Code oracle: as written, and
with `toolgate hook` as a PreToolUse and PermissionRequest hook in the user settings. Prints
each call's decision both ways, whether the file the command targets survived, and the counts;
exits 1 when a call with the hook is not decided as toolgate decides it (`toolgate_expects` in
a scenario, default deny).

A development tool, never run in CI: it needs the oracle (root, Claude Code installed by its
setup.sh) and a built toolgate. See README.md.
"""

import argparse
import collections
import json
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def scenarios(path):
    """The scenarios, each with what toolgate decides for its call (`toolgate_expects`,
    default deny), a field the oracle does not take."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                scenario = json.loads(line)
                expects = scenario.pop("toolgate_expects", "deny")
                yield scenario, expects


def with_hook(scenario, toolgate):
    hook = [{"matcher": "*", "hooks": [{"type": "command", "command": shlex.quote(toolgate) + " hook"}]}]
    out = dict(scenario, id=scenario["id"] + "+hook")
    user = dict(out.get("user_settings") or {})
    user["hooks"] = {"PreToolUse": hook, "PermissionRequest": hook}
    out["user_settings"] = user
    return out


def run_oracle(oracle, batch):
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for scenario in batch:
            f.write(json.dumps(scenario) + "\n")
        name = f.name
    try:
        cmd = ["bash", "run-in-netns.sh", "python3", "oracle.py", "--jsonl", name]
        done = subprocess.run(cmd, cwd=oracle, capture_output=True, text=True, check=False)
    finally:
        os.unlink(name)
    results = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    if len(results) != len(batch):
        sys.exit("the oracle answered %d of %d scenarios:\n%s" % (len(results), len(batch), done.stderr[-2000:]))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", required=True, help="the Claude Code oracle's folder")
    parser.add_argument("--toolgate", default=os.path.join(ROOT, "target/debug/toolgate"))
    parser.add_argument("--scenarios", default=os.path.join(HERE, "scenarios.jsonl"))
    args = parser.parse_args()
    toolgate = os.path.abspath(args.toolgate)
    if not os.access(toolgate, os.X_OK):
        sys.exit("no toolgate at %s: cargo build -p toolgate first, or pass --toolgate" % toolgate)
    listed = list(scenarios(args.scenarios))
    plain = [scenario for scenario, _ in listed]
    results = run_oracle(args.oracle, plain + [with_hook(s, toolgate) for s in plain])
    alone, hooked = results[: len(plain)], results[len(plain):]
    counts = {"alone": collections.Counter(), "hook": collections.Counter()}
    ran = {"alone": 0, "hook": 0}
    failures = []
    for (scenario, expects), before, after in zip(listed, alone, hooked):
        row = [scenario["id"]]
        for label, result in (("alone", before), ("hook", after)):
            if result.get("error"):
                sys.exit("%s (%s): %s" % (scenario["id"], label, result["error"]))
            decision = result["results"][0]["decision"]
            counts[label][decision] += 1
            gone = "x" in scenario.get("watch", []) and result["files_after"].get("x") is None
            ran[label] += gone
            row.append(decision + (" (x removed)" if gone else ""))
        if row[2] != expects:
            failures.append(scenario["id"])
            reason = after["results"][0]["tool_result"]["text"][:200]
            row.append("<- expected %s: %s" % (expects, reason))
        print("  ".join(row))
    for label in ("alone", "hook"):
        summary = ", ".join("%s %d" % (k, counts[label][k]) for k in ("allow", "ask", "deny", "error"))
        print("%s: %s; the denied command ran in %d" % (label, summary, ran[label]))
    if failures:
        print("not decided as toolgate decides with the hook: " + ", ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
