"""scikit-learn's own estimator checks on both forests, with a fixed and an increasing lifetime.

No check is expected to fail. A check that cannot apply would go in EXPECTED_FAILED_CHECKS,
keyed by estimator class name, {check name: reason}; it is empty on purpose.
(``check_array_api_input`` skips itself unless SCIPY_ARRAY_API is set.)
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from mondrian import MondrianForestClassifier, MondrianForestRegressor

EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {
    "MondrianForestClassifier": {},
    "MondrianForestRegressor": {},
}


@parametrize_with_checks(
    [
        MondrianForestClassifier(),
        MondrianForestRegressor(),
        MondrianForestClassifier(lifetime="increasing", vote="hard"),
        MondrianForestRegressor(lifetime="increasing"),
    ],
    expected_failed_checks=lambda estimator: EXPECTED_FAILED_CHECKS[type(estimator).__name__],
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
