// Node module hooks (registered by core/discovery.ts): a module imported with `?m1nd-gen=N` passes
// that tag on to the project files it imports, so each host generation gets fresh plugin code,
// while m1nd's own core/ and everything in node_modules stay shared (one M1ndError class, one TypeBox).
let coreDir = '';

export async function initialize(data) {
  coreDir = data?.coreDir ?? '';
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  const tag = context.parentURL && /[?&]m1nd-gen=([^&#]+)/.exec(context.parentURL);
  if (!tag || !result.url.startsWith('file:') || result.url.includes('?')) return result;
  if (result.url.includes('/node_modules/') || (coreDir && result.url.startsWith(coreDir))) return result;
  return { ...result, url: `${result.url}?m1nd-gen=${tag[1]}` };
}
