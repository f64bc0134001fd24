// Bundles each library of the suite into one script that sets a global, so
// the worker can load it with one feed (the host's own evaluation, which
// strict eval allows). Run after `npm ci`; writes dist/<global>.js.
import { build } from 'esbuild';
import { mkdirSync } from 'node:fs';

const libraries = {
  lodash: "import lodash from 'lodash'; globalThis.lodash = lodash;",
  d3: "import * as d3 from 'd3'; globalThis.d3 = d3;",
  dagre: "import dagre from 'dagre'; globalThis.dagre = dagre;",
  turf: "import * as turf from '@turf/turf'; globalThis.turf = turf;",
  mathjs: "import * as math from 'mathjs'; globalThis.math = math;",
  dateFns: "import * as dateFns from 'date-fns'; globalThis.dateFns = dateFns;",
  zod: "import * as z from 'zod'; globalThis.z = z;",
  ajv: "import Ajv from 'ajv'; globalThis.Ajv = Ajv;",
  yaml: "import * as YAML from 'yaml'; globalThis.YAML = YAML;",
  marked: "import { marked } from 'marked'; globalThis.marked = marked;",
  handlebars: "import Handlebars from 'handlebars'; globalThis.Handlebars = Handlebars;",
  decimal: "import Decimal from 'decimal.js'; globalThis.Decimal = Decimal;",
  luxon: "import * as luxon from 'luxon'; globalThis.luxon = luxon;",
  echarts: "import * as echarts from 'echarts'; globalThis.echarts = echarts;",
};

mkdirSync('dist', { recursive: true });
for (const [name, contents] of Object.entries(libraries)) {
  await build({
    stdin: { contents, resolveDir: '.', loader: 'js' },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    outfile: `dist/${name}.js`,
    logLevel: 'warning',
    legalComments: 'none',
    // A production build, as a user would ship: no development-only checks.
    define: { 'process.env.NODE_ENV': '"production"' },
  });
}
console.log(`bundled ${Object.keys(libraries).length} libraries into dist/`);
