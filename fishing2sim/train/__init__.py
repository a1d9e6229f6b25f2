"""`fishing2sim train`: the student policy `skilled` distilled from search (expert
iteration): self-play positions (labels.py), the teacher search's option values (label.py),
the fit (fit.py), the model file (model.py), the student's features and decisions
(features.py, student.py), its evaluation (evaluate.py), the training run (run.py) with its report
(report.py) and its distill step, one student fitted to several (distill.py).
docs/strategies.md, "The student policy"."""
