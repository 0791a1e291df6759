#!/usr/bin/env python3
"""The fake Responses API of scripts/e2e/codex/, able to hold a request.

Same options as fake_responses_server.py plus --hold-file: while that file exists, a
`POST …/responses` request (a model turn; not /responses/compact) is held before it is read
and answered: the server creates `<hold-file>.held` and waits until the hold file is removed.
So Codex is kept mid-request, its session live, for as long as the driver wants.
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "codex"))
import fake_responses_server as fake  # noqa: E402

HOLD = None
_orig_post = fake.Handler.do_POST


def held_post(self):
    path = self.path.split("?")[0].rstrip("/")
    if HOLD and path.endswith("/responses") and os.path.exists(HOLD):
        with open(HOLD + ".held.tmp", "w") as f:
            f.write(path + "\n")
        os.replace(HOLD + ".held.tmp", HOLD + ".held")
        while os.path.exists(HOLD):
            time.sleep(0.05)
            with fake.LOCK:
                fake.STATE["last"] = time.time()
    return _orig_post(self)


def main():
    global HOLD
    argv = sys.argv[1:]
    if "--hold-file" in argv:
        i = argv.index("--hold-file")
        HOLD = argv[i + 1]
        del argv[i : i + 2]
    sys.argv = [sys.argv[0]] + argv
    fake.Handler.do_POST = held_post
    fake.main()


if __name__ == "__main__":
    main()
