// Model mode's scheme boxes: the fields of scheme A's and B's controls (scheme, ratio in whole
// frequency pairs, hierarchy, segment, window, group, scaling, factor), with the core's ranges.
import { SCALINGS } from '../../shared/schemes.js';
import { CHECKPOINT_SCHEMES, isBaseline } from '../../shared/models.js';
import { modelHelp, factorHelp } from '../../shared/model-wording.js';
import { CATALOGUE, options, numberSpec } from '../../shared/core-catalogue.js';

const MODEL_SCALINGS = SCALINGS.filter(([s]) => s !== 'llama3');
export const PAIRS = 16; // the shipped model's frequency pairs, until its config is known
// The numbers' ranges and steps are the core's scheme table's (web/src/shared/core-catalogue.js); the help
// is this page's, in bytes, and the ratio moves by one of the model's frequency pairs.
function range(name) {
  const { min, max, minOpen, maxOpen, step, integer } = numberSpec(name);
  return { min, max, minOpen, maxOpen, step, integer };
}

/** The fields of one side's box ('a' or 'b'), for buildControls. */
export function sideControls(side) {
  const k = (name) => `${side}.${name}`;
  return [
    {
      key: k('type'),
      label: 'Scheme',
      type: 'select',
      options: CHECKPOINT_SCHEMES, // "its own positions" shown for a checkpoint only
      help: "The position scheme applied to the model's queries and keys at inference (it was trained with RoPE; a checkpoint's own positions are each layer's as its config sets it up).",
    },
    {
      key: k('ratio'),
      label: 'Ratio',
      type: 'range',
      ...range('ratio'),
      step: 1 / PAIRS,
      numeric: true,
      help: modelHelp('byte').ratio,
      show: (s) => s[side].type === 'hirope',
    },
    {
      key: k('hierarchy'),
      label: 'Hierarchy',
      type: 'select',
      options: options(CATALOGUE.byteHierarchies),
      help: modelHelp('byte').hierarchy,
      show: (s) => s[side].type === 'hirope',
    },
    {
      key: k('segment'),
      label: 'Segment',
      noun: 'segment size',
      type: 'number',
      ...range('segmentSize'),
      help: modelHelp('byte').segment,
      show: (s) => s[side].type === 'hirope' && s[side].hierarchy === 'segments',
    },
    {
      key: k('window'),
      label: 'Window',
      type: 'number',
      ...range('window'),
      help: modelHelp('byte').window,
      show: (s) => s[side].type !== 'rope' && s[side].type !== 'model',
    },
    {
      key: k('group'),
      label: 'Group',
      type: 'number',
      ...range('group'),
      help: 'Self-Extend: far distances are divided by G.',
      show: (s) => s[side].type === 'self-extend',
    },
    {
      key: k('scaling'),
      label: 'Scaling',
      type: 'select',
      options: MODEL_SCALINGS,
      help: 'Frequency scaling relative to the training length: position interpolation, NTK-aware, dynamic NTK or YaRN.',
      show: (s) => !isBaseline(s[side].type) && s[side].type !== 'model',
    },
    {
      key: k('factor'),
      label: 'Factor',
      noun: 'scaling factor',
      type: 'number',
      ...range('factor'),
      help: factorHelp('linear'),
      show: (s) =>
        !isBaseline(s[side].type) &&
        s[side].type !== 'model' &&
        s[side].scaling !== 'none' &&
        s[side].scaling !== 'dynamic-ntk',
    },
  ];
}
