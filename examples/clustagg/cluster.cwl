#!/usr/bin/env cwl-runner
# Step 1: the three base clusterings, one per MPI task.
cwlVersion: v1.2
class: CommandLineTool
baseCommand: [mpiexec]
arguments: ["-n", $(inputs.processes), python, -m, clustagg, cluster, --out, clusters.npz]
requirements:
  InlineJavascriptRequirement: {}
inputs:
  points: {type: File, inputBinding: {prefix: --points}}
  seed: {type: int, inputBinding: {prefix: --seed}}
  processes: {type: int, default: 3}
outputs:
  clusters: {type: File, outputBinding: {glob: clusters.npz}}
