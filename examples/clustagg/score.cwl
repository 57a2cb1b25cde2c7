#!/usr/bin/env cwl-runner
# Step 3: labels, silhouette, and the loop state carried from the previous round.
cwlVersion: v1.2
class: CommandLineTool
baseCommand: [python, -m, clustagg, score, --out, score.json, --labels-out, labels.npy]
requirements:
  InlineJavascriptRequirement: {}
inputs:
  points: {type: File, inputBinding: {prefix: --points}}
  clusters: {type: File, inputBinding: {prefix: --clusters}}
  selection: {type: File, inputBinding: {prefix: --selection}}
  seed: {type: int, inputBinding: {prefix: --seed}}
  previous: {type: File?, inputBinding: {prefix: --previous}}
  previous_labels: {type: File?, inputBinding: {prefix: --previous-labels}}
outputs:
  score_json: {type: File, outputBinding: {glob: score.json}}
  labels: {type: File, outputBinding: {glob: labels.npy}}
  silhouette:
    type: float
    outputBinding:
      glob: score.json
      loadContents: true
      outputEval: $(JSON.parse(self[0].contents).round_silhouette)
  rounds:
    type: int
    outputBinding:
      glob: score.json
      loadContents: true
      outputEval: $(JSON.parse(self[0].contents).iterations.length)
  next_seed:
    type: int
    outputBinding:
      glob: score.json
      loadContents: true
      outputEval: $(JSON.parse(self[0].contents).seed + 1)
