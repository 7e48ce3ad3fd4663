"""torch.utils.data stand-in: obp subclasses Dataset at import time."""

from torch import _Unavailable


class Dataset:
    pass


DataLoader = _Unavailable("torch.utils.data.DataLoader")
random_split = _Unavailable("torch.utils.data.random_split")
