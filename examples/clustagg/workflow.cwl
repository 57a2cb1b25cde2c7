#!/usr/bin/env cwl-runner
# The clustering-aggregation loop: cluster (3 MPI tasks) -> aggregate (quantum) -> score,
# seed + 1 per round, while the round's silhouette <= threshold and rounds < max_iter.
# Run:  cwltool --enable-ext examples/clustagg/workflow.cwl examples/clustagg/job.yml
cwlVersion: v1.2
class: Workflow
$namespaces:
  cwltool: "http://commonwl.org/cwltool#"
requirements:
  InlineJavascriptRequirement: {}
  SubworkflowFeatureRequirement: {}
inputs:
  points: File
  seed: {type: int, default: 0}
  threshold: {type: float, default: 0.8}
  max_iter: {type: int, default: 10}
  processes: {type: int, default: 3}
  solver: {type: string, default: anneal}
  quantum_delay: {type: float, default: 0.0}
outputs:
  score:
    type: File?
    outputSource: loop/score_json
    doc: loop state of the last round (history in "iterations", best round and its clusters)
  labels:
    type: File?
    outputSource: loop/labels
    doc: best labels so far (.npy)
steps:
  loop:
    run: round.cwl
    in:
      points: points
      seed: seed
      processes: processes
      solver: solver
      quantum_delay: quantum_delay
      threshold: threshold
      max_iter: max_iter
      silhouette: {default: -1.0}
      rounds: {default: 0}
      previous: {default: null}
      previous_labels: {default: null}
    out: [score_json, labels, silhouette, rounds, next_seed]
    requirements:
      cwltool:Loop:
        loopWhen: $(inputs.silhouette <= inputs.threshold && inputs.rounds < inputs.max_iter)
        loop:
          seed: next_seed
          silhouette: silhouette
          rounds: rounds
          previous: score_json
          previous_labels: labels
        outputMethod: last
