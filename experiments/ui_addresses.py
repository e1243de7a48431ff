"""The MLflow UI's addresses of the figures' experiments and runs, in its machine-learning view: what the report links
to and the UI (experiments.ui) prints, without starting or importing either.

MLflow 3 shows an experiment either as GenAI pages (traces, empty here) or as its runs; the address's ``workflowType``
asks for the runs (the UI would otherwise pick the pages from the browser's workflow switch, GenAI at first).
"""

from __future__ import annotations

from urllib.parse import quote

MACHINE_LEARNING_VIEW = "workflowType=machine_learning"
BY_NAME = "tags.`mlflow.runName`"  # the runs table's "Run Name" order


def experiments_url(base: str) -> str:
    """The list of experiments, in the machine-learning view."""
    return f"{base.rstrip('/')}/#/experiments?{MACHINE_LEARNING_VIEW}"


def runs_url(base: str, experiment_id: str) -> str:
    """An experiment's runs in the machine-learning view, one row each, by name: a figure's trial runs side by side
    (the UI folds them under their figure run when sorted by time)."""
    query = f"{MACHINE_LEARNING_VIEW}&orderByKey={quote(BY_NAME)}&orderByAsc=true"
    return f"{base.rstrip('/')}/#/experiments/{experiment_id}/runs?{query}"


def run_url(base: str, experiment_id: str, run_id: str) -> str:
    """A run's page (its overview: times and Duration, params, tags, children), in the machine-learning view."""
    return f"{base.rstrip('/')}/#/experiments/{experiment_id}/runs/{run_id}?{MACHINE_LEARNING_VIEW}"


def figure_run_url(base: str, experiment_id: str, run_id: str) -> str:
    """A figure run's page open on its claims (its artifact claims.html, experiments.run_view.CLAIMS_PAGE: the table
    of its claims whole, then its drawing), in the machine-learning view; the run's other tabs hold its trial runs,
    tags and the rest."""
    return run_url(base, experiment_id, run_id).replace("?", "/artifacts/claims.html?", 1)
