"""Ctrl-C at every point of a command's run, each on every run: the test hook of tests/test_ctrl_c.py.

With this folder on PYTHONPATH and PERFEVAL_TEST_INTERRUPT_LOG=FILE, the interpreter's site imports
this module before the command starts, and the command runs once as it would (its output is the
test's to check), walking through its points:

- every module that starts to be imported once the perfeval package has started to run: the
  command's own imports, numpy's, and the modules that numpy's C code imports (``datetime``: there a
  KeyboardInterrupt comes out as an ImportError);
- the first call of every function of perfeval's code (under PERFEVAL_TEST_INTERRUPT_SRC, a folder),
  and the first call of each built-in called by the code that runs the process (the entry points,
  the streams, the writing of files), and its return;
- the return of the command's ``main``, and the interpreter's first and last exit handlers;
- importlib's callback that drops a module's lock, once under each handling of Ctrl-C (a
  KeyboardInterrupt there is "Exception ignored in" and a traceback).

At each point the process forks; the copy sends itself SIGINT there and runs on, as if Ctrl-C had
landed at that instant, while the walker waits for it and writes a line to FILE (a dict's repr): the
point, the copy's exit status (negative: ended by the signal; "hang": still running after 60 s,
killed), what it wrote on standard error, and the files then in the folder
PERFEVAL_TEST_INTERRUPT_WATCH (name: size).
Points before the package has set Ctrl-C's handling (the first lines of ``perfeval/__init__.py``) are
written with the status "before" and not interrupted: what runs there is the interpreter's.  With
PERFEVAL_TEST_INTERRUPT_FROM=TEXT, the walk starts at the first point whose name starts with TEXT.
"""

# No import that the command would make itself (json, signal: enum, re, ...): loaded here first, its
# import would not be a point; and no `from __future__`, which perfeval's first line must not find
# loaded.  So the records are written with repr() (read back with ast.literal_eval).
import _signal as signal
import atexit
import os
import select
import sys

_LOG = os.environ.get("PERFEVAL_TEST_INTERRUPT_LOG")
_SRC = os.environ.get("PERFEVAL_TEST_INTERRUPT_SRC", "\0")
_WATCH = os.environ.get("PERFEVAL_TEST_INTERRUPT_WATCH")
_FROM = os.environ.get("PERFEVAL_TEST_INTERRUPT_FROM", "")
_REPLAY = os.environ.get("PERFEVAL_TEST_INTERRUPT_REPLAY")
#: the code that runs the process, whose built-in calls are points too
_PLUMBING = (
    "__init__.py",
    "__main__.py",
    "base/console.py",
    "cli/main.py",
    "classic/main.py",
    "cli/output.py",
)
#: child: a copy to interrupt; target: a replaying copy interrupts itself at its target-th point
_state: dict = {"child": False, "n": 0, "set": False, "from": not _FROM, "target": 0, "done": False}
_seen: set = set()


def _record(row: dict) -> None:
    with open(_LOG, "a", encoding="utf-8") as fh:  # type: ignore[arg-type]
        fh.write(repr(row) + "\n")


def _interrupt_me(err: str) -> None:
    _state["child"] = True
    sys.setprofile(None)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
    os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, here


def _wait(pid: int, err: str) -> tuple:
    pidfd = os.pidfd_open(pid)
    try:
        if not select.select([pidfd], [], [], 60)[0]:
            os.kill(pid, signal.SIGKILL)
        code: int | str = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    finally:
        os.close(pidfd)
    if code == -signal.SIGKILL:
        code = "hang"
    text = ""
    if os.path.exists(err):
        with open(err, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        os.unlink(err)
    files = {e.name: e.stat().st_size for e in os.scandir(_WATCH)} if _WATCH else {}
    return code, text, files


def _point(label: str) -> None:
    if _state["done"]:
        return
    if _state["target"]:  # a replaying copy: on to its point
        _state["n"] += 1
        if _state["n"] == _state["target"]:
            with open(f"{_LOG}.label", "w", encoding="utf-8") as fh:
                fh.write(label)
            _interrupt_me(f"{_LOG}.err")
        return
    if _state["child"]:
        return
    if not _state["from"]:
        if not label.startswith(_FROM):
            return
        _state["from"] = True
    if not _state["set"]:  # the package has set Ctrl-C's handling once the default handler is gone
        _state["set"] = signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        if not _state["set"]:
            _record({"point": label, "status": "before", "stderr": "", "files": {}})
            return
    if _REPLAY and label.startswith(_REPLAY):
        _replay(label)
        return
    _state["n"] += 1
    err = f"{_LOG}.{_state['n']}.err"
    pid = os.fork()
    if pid == 0:
        _interrupt_me(err)
        return
    code, text, files = _wait(pid, err)
    _record({"point": label, "status": code, "stderr": text, "files": files})


def _replay(label: str) -> None:
    """From here on, files are written: a copy forked at a point would share them (an open file, a
    temporary one) with this process.  So each copy is forked here and runs on to its point, the k-th
    from here, where it interrupts itself; what it left in the watched folder is then removed.  This
    process runs on without interrupting.
    """
    _state["done"] = True
    before = set(os.listdir(_WATCH)) if _WATCH else set()
    k = 0
    while True:
        k += 1
        if os.path.exists(f"{_LOG}.label"):
            os.unlink(f"{_LOG}.label")
        pid = os.fork()
        if pid == 0:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            _state.update(done=False, target=k, n=0)
            _point(label)  # this point is the first
            return
        code, text, files = _wait(pid, f"{_LOG}.err")
        if not os.path.exists(f"{_LOG}.label"):  # the copy ran to its end: every point was done
            break
        with open(f"{_LOG}.label", encoding="utf-8") as fh:
            at = fh.read()
        _record({"point": at, "status": code, "stderr": text, "files": files})
        for name in set(os.listdir(_WATCH)) - before if _WATCH else ():
            os.unlink(os.path.join(_WATCH, name))


def _audit(event: str, args: tuple) -> None:
    if event == "import" and "perfeval" in sys.modules:
        _point(f"import {args[0]}")


def _profile(frame, event, arg):
    code = frame.f_code
    if event == "call" and code.co_name == "cb" and code.co_filename == "<frozen importlib._bootstrap>":
        # importlib's weak-reference callback of a module lock: a KeyboardInterrupt there cannot be
        # passed on ("Exception ignored in"); once under each handling of Ctrl-C
        handler = signal.getsignal(signal.SIGINT)
        if ("cb", handler) not in _seen:
            _seen.add(("cb", handler))
            _point(f"call importlib's module lock callback (Ctrl-C: {getattr(handler, '__name__', handler)})")
        return
    if not code.co_filename.startswith(_SRC):
        return
    file = code.co_filename[len(_SRC) :].replace(os.sep, "/")
    where = f"{file}:{getattr(code, 'co_qualname', code.co_name)}"
    if event == "call":
        key: object = code
        label = f"call {where}"
    elif event in ("c_call", "c_return") and file in _PLUMBING:
        name = getattr(arg, "__qualname__", getattr(arg, "__name__", "?"))
        key = (code, name, event)
        label = f"{'built-in' if event == 'c_call' else 'after built-in'} {name} in {where}"
    elif event == "return" and code.co_name == "main" and file in _PLUMBING:
        key, label = ("return", code), f"return of {where}"
        if key not in _seen:
            atexit.register(_point, "the first exit handler")  # the last registered runs first
    else:
        return
    if key not in _seen:
        _seen.add(key)
        _point(label)


if _LOG:
    atexit.register(_point, "the last exit handler")
    sys.addaudithook(_audit)
    sys.setprofile(_profile)
