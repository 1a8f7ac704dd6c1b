/** pg's own mapping of query parameters to the wire (pg 8, `lib/utils.js`, exported by its package.json). */
declare module "pg/lib/utils.js" {
  const utils: { prepareValue(value: unknown): unknown };
  export default utils;
}
