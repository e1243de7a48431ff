"""The estimators several test files share: the online estimators by name (``-clf`` for a classifier) and their kernel
families (the hard-input, thread and interrupt tests), and a family's classifier and regressor. A plain module,
imported by name by the tests and by the subprocesses they start."""

import pytest

from mondrian import (
    AMFClassifier,
    AMFRegressor,
    MondrianForestClassifier,
    MondrianForestRegressor,
    OnlineBSPForestClassifier,
    OnlineBSPForestRegressor,
    OnlineRandomForestClassifier,
)

# Saffari's reference code's options (conf/model/orf_saffari_classifier.yaml's), on features in [0, 1]
ORF_REFERENCE = dict(min_samples_split=5, tests="projection", thresholds="global", gain="saffari", min_gain=None)
ORF_REFERENCE.update(bagging="repeat", feature_range=(0.0, 1.0))
ONLINE = {
    "mf-clf": lambda: MondrianForestClassifier(n_estimators=3, random_state=0),
    "mf-clf-increasing": lambda: MondrianForestClassifier(n_estimators=3, lifetime="increasing", random_state=0),
    "mf-reg": lambda: MondrianForestRegressor(n_estimators=3, random_state=0),
    "mf-reg-path": lambda: MondrianForestRegressor(n_estimators=3, prediction="path", random_state=0),
    "mf-reg-increasing-path": lambda: MondrianForestRegressor(
        n_estimators=3, lifetime="increasing", prediction="path", random_state=0
    ),
    "mf-reg-gaussian": lambda: MondrianForestRegressor(n_estimators=3, prediction="gaussian", random_state=0),
    "amf-clf": lambda: AMFClassifier(n_estimators=3, random_state=0),
    "amf-reg": lambda: AMFRegressor(n_estimators=3, random_state=0),
    "bsp-clf": lambda: OnlineBSPForestClassifier(n_estimators=3, random_state=0),
    "bsp-reg": lambda: OnlineBSPForestRegressor(n_estimators=3, random_state=0),
    "orf-clf": lambda: OnlineRandomForestClassifier(n_estimators=3, min_samples_split=5, random_state=0),
    "orf-clf-reference": lambda: OnlineRandomForestClassifier(**ORF_REFERENCE, n_estimators=3, random_state=0),
}
# a family's classifier and regressor, for the tests parametrized over both
AMF_MODELS = [AMFClassifier, AMFRegressor]
MF_MODELS = [MondrianForestClassifier, MondrianForestRegressor]
# One online estimator per kernel family: the long subprocess tests (threads, interrupts) run these in make test, the
# other estimators' cases in make test-slow (``family_case``), to keep make test in CI's time.
FAMILIES = ("mf-clf", "amf-reg", "bsp-clf", "orf-clf")


def family_case(name: str, *values: str) -> pytest.param:
    """A case of ONLINE's estimator ``name`` (with ``values``), marked slow unless ``name`` is one of FAMILIES."""
    return pytest.param(name, *values, id="-".join([name, *values]), marks=() if name in FAMILIES else pytest.mark.slow)


def is_classifier(name: str) -> bool:
    return "clf" in name
