"""One model used from several threads (the user guide's threading contract): its calls take turns (a per-model
reentrant lock), so predictions from many threads are exact and a learning call beside predictions waits for them and
they for it: no crash, no wrong row, the same model as learning alone. The concurrent runs go through a subprocess
with a time limit and no core dump, so that a crash fails a test instead of the suite."""

import copy
import pickle
import resource
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest
from estimators import ONLINE, family_case

from mondrian._threads import turns_of

TIME_LIMIT = 300  # seconds for one subprocess scenario (numba's cache makes them take a few seconds)
HANG_REPORT = f"import faulthandler; faulthandler.dump_traceback_later({TIME_LIMIT - 30}, exit=True)\n"


def run_isolated(code: str) -> subprocess.CompletedProcess:
    """Python code in a subprocess: no core file, a time limit; its output and exit status. A run that hangs prints
    every thread's stack before the limit (faulthandler), so that a deadlock says where it is."""

    def no_core():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return subprocess.run(
        [sys.executable, "-c", HANG_REPORT + textwrap.dedent(code)], capture_output=True, text=True, timeout=TIME_LIMIT,
        preexec_fn=no_core, cwd=Path(__file__).parent,
    )  # fmt: skip


@pytest.mark.subprocess
@pytest.mark.parametrize("name", [family_case(name) for name in ONLINE])
def test_predictions_from_many_threads_equal_the_serial_ones(name):
    """Four threads predicting one sample at a time (in different orders) and by blocks, against the same calls
    made one after the other: equal bit for bit."""
    done = run_isolated(f"""
        import threading
        import numpy as np
        from estimators import ONLINE, is_classifier
        rng = np.random.default_rng(1)
        X = rng.random((400, 3))
        y = rng.integers(0, 3, 400) if is_classifier({name!r}) else X[:, 0] + rng.normal(0, 0.1, 400)
        model = ONLINE[{name!r}]().fit(X, y)
        Q = rng.random((1500, 3)) * 1.2 - 0.1
        one = model.predict_proba_one if hasattr(model, "predict_proba_one") else model.predict_one
        serial = [one(q) for q in Q]
        blocks = model.predict(Q)
        found, wrong = {{}}, []
        def work(k):
            order = np.random.default_rng(k).permutation(len(Q))
            for i in order:
                if one(Q[i]) != serial[i]:
                    wrong.append((k, int(i)))
            if not np.array_equal(model.predict(Q), blocks):
                wrong.append((k, "predict"))
        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        print("wrong", len(wrong), wrong[:5])
    """)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "wrong 0 []" in done.stdout


@pytest.mark.subprocess
@pytest.mark.parametrize("name", [family_case(name) for name in ONLINE])
def test_learning_beside_predictions_never_crashes_and_learns_as_alone(name):
    """One thread learning sample by sample (learn_one) and by blocks (partial_fit), two threads predicting all the
    while: the process ends normally, every prediction is valid (finite; a classifier's probabilities sum to 1), and
    the model ends as one that learnt the same stream alone."""
    done = run_isolated(f"""
        import sys
        import threading
        import numpy as np
        from estimators import ONLINE, is_classifier
        sys.setswitchinterval(1e-4)  # the learner gets the GIL back soon from the two predicting threads
        classifier = is_classifier({name!r})
        rng = np.random.default_rng(2)
        X = rng.random((900, 3))
        y = rng.integers(0, 3, 900) if classifier else X[:, 0] + rng.normal(0, 0.1, 900)
        Q = rng.random((64, 3))
        def learn(model):
            model.partial_fit(X[:300], y[:300], **({{"classes": [0, 1, 2]}} if classifier else {{}}))
            for i in range(300, 600):
                model.learn_one(X[i], y[i])
            for start in range(600, 900, 50):
                model.partial_fit(X[start:start + 50], y[start:start + 50])
        alone = ONLINE[{name!r}]()
        learn(alone)
        model = ONLINE[{name!r}]()
        learning = threading.Event()
        bad = []
        def predict(k):
            while not learning.is_set():
                pass
            while learning.is_set():
                try:
                    out = model.predict_proba(Q) if classifier else model.predict(Q)
                    q = Q[k]
                    one = model.predict_proba_one(q) if classifier else model.predict_one(q)
                except Exception as error:  # before the first learning call: not fitted
                    if "not fitted" not in str(error) and "learnt nothing" not in str(error):
                        bad.append(repr(error))
                    continue
                values = list(one.values()) if classifier else [one]
                if not np.isfinite(out).all() or not np.isfinite(values).all():
                    bad.append("not finite")
                if classifier and (not np.allclose(out.sum(axis=1), 1) or not np.isclose(sum(values), 1)):
                    bad.append("rows do not sum to 1")
        threads = [threading.Thread(target=predict, args=(k,), daemon=True) for k in range(2)]
        [t.start() for t in threads]
        learning.set()
        try:
            learn(model)
        finally:  # an error in learning ends the predictions too, and is printed
            learning.clear()
        [t.join() for t in threads]
        same = (np.array_equal(model.predict_proba(Q), alone.predict_proba(Q)) if classifier
                else np.array_equal(model.predict(Q), alone.predict(Q)))
        print("bad", len(bad), bad[:3], "same", same)
    """)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "bad 0 [] same True" in done.stdout, done.stdout


def test_calls_on_one_model_take_turns_and_a_call_may_call_another():
    """A prediction waits while another thread learns (and a learner while another thread predicts); the thread
    in a call may make other calls on the model inside it (learn_one passes its sample to partial_fit)."""
    rng = np.random.default_rng(0)
    model = ONLINE["mf-clf"]().fit(rng.random((50, 2)), np.arange(50) % 2)
    events = []
    with turns_of(model):  # this thread is inside a call
        thread = threading.Thread(target=lambda: (model.predict(rng.random((3, 2))), events.append("predicted")))
        thread.start()
        thread.join(0.3)
        assert events == []  # waits for the call in flight
        model.learn_one(np.array([0.5, 0.5]), 1)  # a call inside a call, in the same thread
    thread.join(5)
    assert events == ["predicted"]


def test_a_model_its_copies_and_its_unpickled_twins_each_have_a_lock_of_their_own():
    model = ONLINE["amf-clf"]().fit(np.random.default_rng(0).random((50, 2)), np.arange(50) % 2)
    model.predict_one(np.array([0.5, 0.5]))
    twins = [pickle.loads(pickle.dumps(model)), copy.deepcopy(model), copy.copy(model)]
    assert not any("turn" in name or "lock" in name for name in vars(model))  # beside the model, not in it
    for twin in twins:
        assert twin.predict_one(np.array([0.5, 0.5])) == model.predict_one(np.array([0.5, 0.5]))
        assert turns_of(twin) is not turns_of(model)
    assert turns_of(model) is turns_of(model)
