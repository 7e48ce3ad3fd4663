"""torch.nn stand-in: obp subclasses nothing from it at import time."""


class Module:
    pass


def __getattr__(name):
    from torch import _Unavailable

    return _Unavailable(f"torch.nn.{name}")
