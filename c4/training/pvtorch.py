"""The policy/value net in PyTorch (training only), with the parameter names
of the weights file (:mod:`engine_svc.learned.weights`) so export is a copy."""

from __future__ import annotations


def build(channels: int, blocks: int, value_hidden: int):
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
            self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

        def forward(self, x):
            return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))

    class Head(nn.Module):
        pass

    class PV(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(2, channels, 3, padding=1)
            for i in range(blocks):
                self.add_module(f"block{i}", Block())
            self.policy = Head()
            self.policy.conv = nn.Conv2d(channels, 2, 1)
            self.policy.fc = nn.Linear(84, 7)
            self.value = Head()
            self.value.conv = nn.Conv2d(channels, 1, 1)
            self.value.fc1 = nn.Linear(42, value_hidden)
            self.value.fc2 = nn.Linear(value_hidden, 1)

        def forward(self, x):
            x = torch.relu(self.stem(x))
            for i in range(blocks):
                x = getattr(self, f"block{i}")(x)
            n = x.shape[0]
            p = self.policy.fc(torch.relu(self.policy.conv(x)).reshape(n, -1))
            v = torch.relu(self.value.conv(x)).reshape(n, -1)
            v = torch.tanh(self.value.fc2(torch.relu(self.value.fc1(v))))[:, 0]
            return p, v

    return PV()


def export_arrays(model) -> dict:
    """name -> float32 numpy array, the weights file's names (``stem.w``, ...)."""
    out = {}
    for name, t in model.state_dict().items():
        base, _, kind = name.rpartition(".")
        out[f"{base}.{'w' if kind == 'weight' else 'b'}"] = t.detach().cpu().numpy().astype("float32")
    return out
