// @open-rpc/generator's own TypeScript client component, with one fix: a method whose name has dots
// (`session.create`, every method here but `screenshot`) becomes a property with underscores
// (`session_create`, the name the MCP tools use too). The stock template writes
// `public session.create: SessionCreate = …`, which does not parse (open-rpc/generator#619, not
// fixed in 1.22.3). The wire name is untouched: the template's `this.request("session.create")`
// and its embedded document keep the dots. Everything else is the stock component as installed.
// Use it with a generator config whose component is
//   { "type": "custom", "customComponent": "./scripts/openrpcClientComponent.mjs",
//     "customType": "client", "language": "typescript", "name": "my-client" }
// (docs/transports.md, "OpenRPC", has the whole command).
import generatorComponents from '@open-rpc/generator/build/components/index.js';

const { defaultClientComponent } = generatorComponents;

const stockTypescript = defaultClientComponent.hooks.templateFiles.typescript;
if (!Array.isArray(stockTypescript) || stockTypescript.length !== 1)
  throw new Error(
    '@open-rpc/generator: the stock TypeScript client has changed shape; review this component',
  );
const stock = stockTypescript[0];

/** The class property the stock template declares for a method: `  public a.b.c: Type = (...params) =>`. */
const DOTTED_PROPERTY = /^(\s*public )([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)(: )/gm;

/** @param {string} code */
function undotted(code) {
  return code.replace(
    DOTTED_PROPERTY,
    (_all, before, name, after) => `${before}${name.replace(/\./g, '_')}${after}`,
  );
}

// The generator loads a custom component with require() (Node 20.19 loads an ES module so, as its
// namespace) and reads `hooks` and `staticPath` from the `.default` of its interop wrapper, which
// for a module without __esModule is the namespace itself: hence named exports, no default.
export const hooks = {
  ...defaultClientComponent.hooks,
  templateFiles: {
    typescript: [{ path: stock.path, template: (data) => undotted(stock.template(data)) }],
  },
};

/** @param {string} language */
export const staticPath = (language) => defaultClientComponent.staticPath(language, 'client');
