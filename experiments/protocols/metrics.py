"""Per-sample losses and test metrics, as the papers define them."""

from __future__ import annotations

import numpy as np

# Probabilities are clipped here before the log (empirical leaf distributions give exact zeros).
PROBA_FLOOR = 1e-15


def log_losses(proba: np.ndarray, y_index: np.ndarray) -> np.ndarray:
    """-log p(y) per sample, with p clipped below at PROBA_FLOOR."""
    return -np.log(np.clip(proba[np.arange(len(y_index)), y_index], PROBA_FLOOR, 1.0))


def classification_scores(proba: np.ndarray, y_index: np.ndarray) -> dict[str, float]:
    return {
        "accuracy": float(np.mean(np.argmax(proba, axis=1) == y_index)),
        "log_loss": float(np.mean(log_losses(proba, y_index))),
    }


def regression_scores(prediction: np.ndarray, y: np.ndarray) -> dict[str, float]:
    mse = float(np.mean((prediction - y) ** 2))
    return {"mse": mse, "rmse": float(np.sqrt(mse))}
