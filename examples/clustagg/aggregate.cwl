#!/usr/bin/env cwl-runner
# Step 2: MWIS over the candidate clusters; the quantum step, holding no classical node.
cwlVersion: v1.2
class: CommandLineTool
baseCommand: [python, -m, clustagg, aggregate, --out, selection.json]
inputs:
  clusters: {type: File, inputBinding: {prefix: --clusters}}
  seed: {type: int, inputBinding: {prefix: --seed}}
  solver: {type: string, default: anneal, inputBinding: {prefix: --solver}}
  quantum_delay: {type: float, default: 0.0, inputBinding: {prefix: --quantum-delay}}
outputs:
  selection: {type: File, outputBinding: {glob: selection.json}}
