"""torch.utils stand-in."""
