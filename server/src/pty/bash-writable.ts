/** Whether the integration may set a variable of the user's without ending the shell. */

/**
 * A `[[ ]]` that holds when the variable `name` may be set through `printf -v`. That builtin
 * only fails on a read-only variable, but under `set -e` bash then ends the shell, even in a
 * function called in a `||` list; so under `set -e` the variable is asked first, without
 * failing under `set -u`: `${x[@]@a}` shows a read-only variable declared with no value, or
 * one with values; `${x@a}` an empty read-only array, asked only without `set -u` (where it
 * would be an unbound variable). Not seen: an empty read-only array under `set -eu`: the
 * shell then ends there, and the engine starts a new one, as for any shell a command ended.
 */
export function writable(name: string): string {
  return `[[ ${writableTerm(name)} ]]`;
}

/** writable's condition, to join to another inside one `[[ ]]`. Without `set -e` a failed
 *  `printf -v` is harmless, and nothing else needs asking. */
export function writableTerm(name: string): string {
  return `( $- != *e* || ( \${${name}[@]@a} != *r* && ( $- == *u* || \${${name}@a} != *r* ) ) )`;
}
