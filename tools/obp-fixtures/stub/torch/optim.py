"""torch.optim stand-in."""


def __getattr__(name):
    from torch import _Unavailable

    return _Unavailable(f"torch.optim.{name}")
