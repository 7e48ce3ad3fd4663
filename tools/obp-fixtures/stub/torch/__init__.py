"""Stand-in for PyTorch, enough for `import obp` to succeed.

obp imports torch at module import time for its neural policies; the
off-policy estimators and the regression model used by the fixture script
are numpy/scikit-learn only. Anything reached at run time raises.
"""


class _Unavailable:
    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"torch stub: {self._name} is not available")

    def __getattr__(self, attr):
        return _Unavailable(f"{self._name}.{attr}")


class Tensor:
    """Only used in annotations and isinstance checks."""


def __getattr__(name):
    return _Unavailable(f"torch.{name}")


# obp reaches `torch.utils.data.Dataset` through attribute access on the
# package, so the submodules must be loaded with it (plain imports: the
# module `__getattr__` above would shadow `from torch import ...`).
import torch.nn  # noqa: E402,F401
import torch.nn.functional  # noqa: E402,F401
import torch.optim  # noqa: E402,F401
import torch.utils.data  # noqa: E402,F401
