#!/usr/bin/env cwl-runner
# One round of the loop; workflow.cwl repeats it (its loop condition reads extra step inputs).
cwlVersion: v1.2
class: Workflow
requirements:
  InlineJavascriptRequirement: {}
inputs:
  points: File
  seed: int
  processes: int
  solver: string
  quantum_delay: float
  previous: File?
  previous_labels: File?
outputs:
  score_json: {type: File, outputSource: score/score_json}
  labels: {type: File, outputSource: score/labels}
  silhouette: {type: float, outputSource: score/silhouette}
  rounds: {type: int, outputSource: score/rounds}
  next_seed: {type: int, outputSource: score/next_seed}
steps:
  cluster:
    run: cluster.cwl
    in: {points: points, seed: seed, processes: processes}
    out: [clusters]
  aggregate:
    run: aggregate.cwl
    in: {clusters: cluster/clusters, seed: seed, solver: solver, quantum_delay: quantum_delay}
    out: [selection]
  score:
    run: score.cwl
    in:
      points: points
      clusters: cluster/clusters
      selection: aggregate/selection
      seed: seed
      previous: previous
      previous_labels: previous_labels
    out: [score_json, labels, silhouette, rounds, next_seed]
