"""hirope's code-model trainer and its diagnostics, a package run from the repository root:

    /usr/bin/python3 -m training.train [--model NAME] ...     (the entry point; npm run train-model)

registry: the model registry (models/registry.json) and manifests; data: loading the
manifest's files, the tokenizer subprocess (tokenize.mjs), training batches; model: the decoder;
reference: the inference schemes' reference scores (the oracle the C++ inference is checked
against); export: the .hrm weights file and the test vectors; copying, circuits: copy teaching and
the attention diagnostic; train: the training loop. copy_check, heads_check and make_manifest are
diagnostics and tools run the same way (python3 -m training.NAME).
"""
