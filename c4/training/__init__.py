"""Training of the learned players (``c4 train``): exact labels from the
solver and the analysis book, the policy/value net, the DQN, curves.

PyTorch is imported lazily (only by the training loops), so ``c4 --help`` and
the label stage work without it. Layer 3: may import anything below.
"""
