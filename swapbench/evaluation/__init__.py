"""`swapbench eval`: score NLI models on the word-swap configurations and report Δ accuracy.

Modules: data (the built benchmark), models and label_map (loading, label mapping), positional (encoding family),
scorers (one per --mode: classifier, prompt; SCORERS names them), finetune (base models), scoring (fast inference),
prompting (decoder-only models scored by prompt), results and
stats (the numbers), schema (the results file),
report (files and table), pipeline (all of it in order), command (the CLI). Entry point:
`swapbench.evaluation.pipeline.evaluate(eval_options_model()(...))` (options: eval's own and every scorer's);
readers of results files need only `swapbench.results.schema.EvalResults`, which loads no torch.
"""
