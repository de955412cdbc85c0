"""Learned players: a policy/value network (``net``, ``az:N``) and a DQN (``dqn``).

Run time needs numpy only: the weights are one ``.npz`` file beside the books
(``books/models/``), read and checked by :mod:`.weights`, evaluated by
:mod:`.pvnet` and :mod:`.qnet`; :mod:`.puct` is the PUCT search guided by the
net. Training (PyTorch, the optional extra ``train``) lives in
``c4/training/`` and exports to the same file format.
"""

from .weights import MODEL_DIR, WeightsError

__all__ = ["MODEL_DIR", "WeightsError"]
