// The C++ core's vocabulary (hr.vocabulary), written out at build time by
// tools/write-vocabulary.mjs: scheme names, labels and flags, scalings, value lists, languages.
// The page reads it instead of keeping copies; adding a scheme to the core adds it here.
import VOCABULARY from '../../build/generated/vocabulary.js';

export { VOCABULARY };

/** [name, label] pairs of a value list (layouts, gaps, byteHierarchies, ...). */
export const options = (list) => list.map((x) => [x.name, x.label]);

/** The names in a list whose entry satisfies test. */
export const namesWhere = (list, test) => new Set(list.filter(test).map((x) => x.name));
