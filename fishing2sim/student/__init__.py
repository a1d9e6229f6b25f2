"""The student policy ``skilled`` as it plays (strategies/skilled.py and the student files a
training run writes): its features (features.py, with tables.py and simd.py; layout.py
names them), its decisions (decisions.py) and its model file read (model.py, stored.py).
Nothing here imports the training (fishing2sim/train/, which fits the weights)."""
