#!/usr/bin/env python3
"""Writes the bundled sample sessions in sample-sessions/: one realistic coding-agent
session, rendered in each plain format (OpenAI Chat, Anthropic Messages, plain JSONL) and as
the transcript each coding agent writes (Claude Code, Codex CLI, goose). Deterministic:
rerun to regenerate; ids, timestamps and opaque blobs are derived from fixed seeds."""
import json, os, sys

import agent_samples

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sample-sessions")

SYSTEM = ("You are a careful coding assistant working in the user's repository. "
          "Use the tools to read files and run commands; explain what you change and why. "
          "Never invent test results.")

INVENTORY = '''"""Inventory bookkeeping for the shop."""
from dataclasses import dataclass, field
from decimal import Decimal


@dataclass
class Item:
    sku: str
    name: str
    price: Decimal
    quantity: int = 0


@dataclass
class Inventory:
    items: dict = field(default_factory=dict)

    def add(self, item: Item) -> None:
        if item.sku in self.items:
            self.items[item.sku].quantity += item.quantity
        else:
            self.items[item.sku] = item

    def remove(self, sku: str, quantity: int) -> None:
        item = self.items[sku]
        if quantity > item.quantity:
            raise ValueError(f"only {item.quantity} of {sku} in stock")
        item.quantity -= quantity

    def total_value(self) -> Decimal:
        return sum(i.price * i.quantity for i in self.items.values())

    def low_stock(self, threshold: int = 5) -> list:
        return [i for i in self.items.values() if i.quantity < threshold]
'''

PYTEST_FAIL = '''============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-8.3.2, pluggy-1.5.0
rootdir: /home/dev/shop
collected 14 items

tests/test_inventory.py ........F.....                                   [100%]

=================================== FAILURES ===================================
_________________________ test_total_value_empty_store _________________________

    def test_total_value_empty_store():
        inv = Inventory()
>       assert inv.total_value() == Decimal("0")
E       AssertionError: assert 0 == Decimal('0')
E        +  where 0 = <bound method Inventory.total_value of Inventory(items={})>()
E        +    where <bound method Inventory.total_value ...> = Inventory(items={}).total_value

tests/test_inventory.py:88: AssertionError
=========================== short test summary info ============================
FAILED tests/test_inventory.py::test_total_value_empty_store - AssertionError
========================= 1 failed, 13 passed in 0.21s =========================
'''

PYTEST_TYPE = '''tests/test_inventory.py::test_total_value_empty_store FAILED
E   assert isinstance(inv.total_value(), Decimal)
E   AssertionError: total_value() returned int 0 for an empty store
1 failed, 13 passed in 0.19s
'''

PYTEST_PASS = '''============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-8.3.2, pluggy-1.5.0
rootdir: /home/dev/shop
collected 15 items

tests/test_inventory.py ...............                                  [100%]

============================== 15 passed in 0.18s ==============================
'''

GIT_DIFF = '''diff --git a/shop/inventory.py b/shop/inventory.py
@@ -31,7 +31,7 @@ class Inventory:
     def total_value(self) -> Decimal:
-        return sum(i.price * i.quantity for i in self.items.values())
+        return sum((i.price * i.quantity for i in self.items.values()), Decimal("0"))
diff --git a/tests/test_inventory.py b/tests/test_inventory.py
@@ -90,0 +91,6 @@ def test_total_value_empty_store():
+def test_total_value_is_decimal_when_empty():
+    assert isinstance(Inventory().total_value(), Decimal)
'''

# The conversation: (role, text) or ("call", name, args, result) steps.
TURNS = [
    ("user", "The CI run on main is red since yesterday: one test in tests/test_inventory.py fails. Can you find out why and fix it? Keep the change small."),
    ("assistant", "I'll start by running the test suite to see the failure."),
    ("call", "run_command", {"command": "pytest -q tests/test_inventory.py"}, PYTEST_FAIL),
    ("assistant", "`test_total_value_empty_store` fails: for an empty inventory `total_value()` returns the int `0` instead of a `Decimal`. Let me read the implementation."),
    ("call", "read_file", {"path": "shop/inventory.py"}, INVENTORY),
    ("assistant", "The cause is `sum()` with no start value: on an empty iterable it returns the integer 0. Passing `Decimal(\"0\")` as the start value fixes it and keeps the sum exact."),
    ("user", "Makes sense. Please also add a regression test that checks the type, not just the value."),
    ("call", "edit_file", {"path": "shop/inventory.py", "old": "return sum(i.price * i.quantity for i in self.items.values())", "new": "return sum((i.price * i.quantity for i in self.items.values()), Decimal(\"0\"))"}, "Edited shop/inventory.py: 1 line changed."),
    ("call", "run_command", {"command": "pytest -q tests/test_inventory.py -k total_value"}, PYTEST_TYPE),
    ("assistant", "That run was against the old bytecode cache; the new regression test I wrote in my head isn't in the file yet either. Adding it now and clearing the cache."),
    ("call", "edit_file", {"path": "tests/test_inventory.py", "old": "", "new": "def test_total_value_is_decimal_when_empty():\n    assert isinstance(Inventory().total_value(), Decimal)\n"}, "Edited tests/test_inventory.py: 2 lines added."),
    ("call", "run_command", {"command": "find . -name __pycache__ -exec rm -rf {} + && pytest -q"}, PYTEST_PASS),
    ("assistant", "All 15 tests pass now, including the new regression test."),
    ("user", "Great. Show me the diff before I commit."),
    ("call", "run_command", {"command": "git diff"}, GIT_DIFF),
    ("assistant", "Here is the change:\n\n- `shop/inventory.py`: `total_value()` now starts the sum at `Decimal(\"0\")`, so an empty inventory returns `Decimal('0')`.\n- `tests/test_inventory.py`: a regression test asserts the result is a `Decimal` when the store is empty.\n\nSuggested commit message: \"Return Decimal from total_value() on an empty inventory\"."),
    ("user", "While you're in there: low_stock() should also accept a threshold of 0 meaning 'out of stock only'. Does it?"),
    ("assistant", "Yes. `low_stock(0)` returns items with `quantity < 0`, which is none, so it would never report out-of-stock items. If 0 should mean out of stock, the comparison needs to be `<=` for that case. Do you want `low_stock(threshold)` to include items *at* the threshold in general, or only special-case 0?"),
    ("user", "Only special-case 0, and document it in the docstring."),
]

TOOLS = {
    "run_command": "Run a shell command in the repository and return its output.",
    "read_file": "Read a file from the repository.",
    "edit_file": "Replace text in a file.",
}


def steps():
    n = 0
    for t in TURNS:
        if t[0] == "call":
            n += 1
            yield ("call", f"call_{n:02d}", t[1], t[2], t[3])
        else:
            yield t


def openai_messages():
    msgs = [{"role": "system", "content": SYSTEM}]
    for s in steps():
        if s[0] == "call":
            _, cid, name, args, result = s
            msgs.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})
            msgs.append({"role": "tool", "tool_call_id": cid, "content": result})
        else:
            msgs.append({"role": s[0], "content": s[1]})
    return msgs


def anthropic_messages():
    msgs = []
    def push(role, block):
        if msgs and msgs[-1]["role"] == role:
            msgs[-1]["content"].append(block)
        else:
            msgs.append({"role": role, "content": [block]})
    for s in steps():
        if s[0] == "call":
            _, cid, name, args, result = s
            tid = "toolu_" + cid.split("_")[1].rjust(4, "0")
            push("assistant", {"type": "tool_use", "id": tid, "name": name, "input": args})
            push("user", {"type": "tool_result", "tool_use_id": tid, "content": result})
        else:
            push(s[0], {"type": "text", "text": s[1]})
    return msgs


def main():
    os.makedirs(OUT, exist_ok=True)
    tools = [{"type": "function", "function": {"name": k, "description": v, "parameters": {"type": "object"}}} for k, v in TOOLS.items()]
    with open(os.path.join(OUT, "openai-chat.json"), "w") as f:
        json.dump({"model": "gpt-4o", "messages": openai_messages(), "tools": tools}, f, indent=2)
        f.write("\n")
    with open(os.path.join(OUT, "anthropic-messages.json"), "w") as f:
        json.dump({"model": "claude-sonnet-4-5", "max_tokens": 8192, "system": [{"type": "text", "text": SYSTEM}],
                   "messages": anthropic_messages(),
                   "tools": [{"name": k, "description": v, "input_schema": {"type": "object"}} for k, v in TOOLS.items()]}, f, indent=2)
        f.write("\n")
    with open(os.path.join(OUT, "plain.jsonl"), "w") as f:
        for m in openai_messages():
            f.write(json.dumps(m, separators=(",", ":")) + "\n")
    texts = dict(inventory=INVENTORY, pytest_fail=PYTEST_FAIL, pytest_pass=PYTEST_PASS,
                 git_diff=GIT_DIFF, turns=TURNS)
    for name, lines in agent_samples.render_all(texts).items():
        with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
            f.writelines(line + "\n" for line in lines)


if __name__ == "__main__":
    sys.exit(main())
