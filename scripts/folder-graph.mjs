#!/usr/bin/env node
// Prints the folder graph of src/ from the project's own dependency-cruiser config (`npm run lint:graph`): each folder,
// the folders it imports (`*` marks an import inside a cycle), then each cycle's folders. Specs are left out, as in
// `npm run lint:deps`; docs/architecture.md#reading-the-check.
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
const { output } = await cruise(['src'], options, {}, { tsConfig: extractTSConfig(options.tsConfig.fileName) });

const inSrc = (name) => name.startsWith('src/') && name.split('/').length > 2;
/** folder → the folders its files import, each with whether the import closes a cycle. */
const graph = new Map();
for (const folder of output.folders ?? []) {
  if (!inSrc(`${folder.name}/`)) continue;
  const targets = (folder.dependencies ?? []).filter((dependency) => inSrc(`${dependency.name}/`));
  graph.set(folder.name, targets);
}

// Two folders are in one cycle when an import between them is circular: join them.
const cycleOf = new Map();
const find = (name) => (cycleOf.get(name) === name || !cycleOf.has(name) ? name : find(cycleOf.get(name)));
for (const [folder, targets] of graph) {
  for (const target of targets.filter((dependency) => dependency.circular)) {
    cycleOf.set(folder, cycleOf.get(folder) ?? folder);
    cycleOf.set(target.name, cycleOf.get(target.name) ?? target.name);
    cycleOf.set(find(folder), find(target.name));
  }
}

for (const folder of [...graph.keys()].sort()) {
  const targets = graph.get(folder).map((dependency) => `${dependency.name.slice(4)}${dependency.circular ? '*' : ''}`);
  console.log(`${folder.slice(4)} → ${targets.sort().join(', ') || '(nothing)'}`);
}
const cycles = new Map();
for (const name of cycleOf.keys()) cycles.set(find(name), [...(cycles.get(find(name)) ?? []), name.slice(4)]);
console.log(`\n${cycles.size} folder cycle(s)${cycles.size ? ':' : ''}`);
for (const members of cycles.values()) console.log(`  {${members.sort().join(', ')}}`);
