/**
 * What DEBUG, ERR and RETURN traps a command left, as post learns it. bash shows those traps
 * only at the top level (inside a function, without functrace and errtrace, `trap -p` shows
 * none of them), so the call line captures them after the run file, and post reads them.
 *
 * The call line writes one `trap -p DEBUG ERR RETURN` and a NUL into the traps file, over the
 * file in place (no truncation: what lies past the NUL is an earlier call's, unread). Two
 * redirections, not one: the steps are run with a DEBUG trap the command may have set in
 * this very call, which prints where it always did, so the steps' own output goes to the
 * file one builtin at a time. (A redirection costs bash about ten syscalls; one per trap
 * and one per NUL, as before, was six.)
 *
 * post compares the whole text with what the integration's own traps show (the common case,
 * one comparison); only when it differs is it split into the three traps, which the trap
 * moves then handle one by one. `trap -p` prints each set trap as `trap -- 'ACTION' SIG` and
 * a newline, in the order asked, ACTION quoted as bash quotes (each `'` inside as `'\''`):
 * the split follows those quotes, so no text inside an action (a newline, `' ERR`) is taken
 * for an entry's end.
 */

/**
 * The call line's step: the traps, and the NUL that ends them, into the file `fileVar`; `X`
 * in place of the traps when `trap` is disabled (`enable -n trap` lasts until the call ends).
 * No file, and no step, when the command unset the variable (read as `[@]`: even under `set -u`).
 */
export function trapCaptureStep(fileVar: string): string {
  return `{ \\builtin trap -p DEBUG ERR RETURN >&9||\\builtin printf X >&9;\\builtin printf '\\0' >&9;} 9<>"\${${fileVar}[@]}";`;
}

/**
 * In post: the captured text into `${T}_lt`. `${T}_la` is an array of the integration's (pre
 * checks its attributes).
 */
export function trapCaptureRead(T: string, fileVar: string): string {
  return `builtin mapfile -d '' -n 1 ${T}_la <"$${fileVar}" || ${T}_la=()
  ${T}_lt=\${${T}_la[0]-}`;
}

/**
 * A `[[ ]]` that holds when no trap changed: the ERR dispatcher, the DEBUG dispatcher or no
 * DEBUG trap (none only when no trap of the user's is behind it), the RETURN dispatcher when
 * a RETURN trap of the user's is behind it, else none. `kd`, `ke`, `kr` hold what each
 * dispatcher in force shows, newline included (bash-quiet-traps.ts).
 */
export function trapsUnchanged(T: string): string {
  const [lt, kd, ke] = ['lt', 'kd', 'ke'].map((name) => `"\${${T}_${name}-}"`);
  // The RETURN dispatcher is there exactly while the user has a RETURN trap behind it.
  const kr = `"\${${T}_ret:+\${${T}_kr-}}"`;
  // Without a DEBUG trap of the user's (most calls) the first test holds, and the DEBUG
  // dispatcher's text is not expanded: bash's cost is per character of every expansion.
  return `[[ ( -z \${${T}_dbg-} && ${lt} == ${ke}${kr} ) || ${lt} == ${kd}${ke}${kr} ]]`;
}

/**
 * The first step of the trap moves: `${T}_lDEBUG`, `${T}_lERR` and `${T}_lRETURN`, each the
 * trap's line as `trap -p` showed it (newline included), or empty when it is not set. Run
 * through `eval` inside post: no function, every builtin as `\builtin`, no alias left.
 *
 * The text is cut at its quotes (written back to the traps file, whole, and read with
 * `mapfile -d "'"`), and an action is the pieces up to a quote that no `\'` and `'` follow
 * (bash shows an action that is one quote alone as `\'`, unquoted).
 * Each piece is looked at once and the action is joined once, so the work grows with the
 * text's length only: an action of 120,000 characters and 40,000 quotes takes no longer to
 * split than to read. (Cutting the text with `${v#*"'"}` copies what is left at each quote.)
 */
export function trapSplit(T: string): string {
  // Names of the split's own (`_tq…`): no other part of the integration uses them.
  const [w, i, m, a, k, e, g] = ['w', 'i', 'm', 'a', 'k', 'e', 'g'].map((name) => `${T}_tq${name}`);
  return `${T}_lDEBUG= ${T}_lERR= ${T}_lRETURN= ${w}=()
{ \\builtin printf %s "\${${T}_lt-}" >|"$${T}_t" && \\builtin mapfile -d "'" ${w} <"$${T}_t"; } || ${w}=()
${i}=0 ${m}=\${#${w}[@]}
while (( ${i} + 1 < ${m} )); do
  ${k}=$${m} ${e}=
  if [[ \${${w}[${i}]} == *"trap -- '" ]]; then
    ${a}=$(( ${i} + 1 )) ${k}=$(( ${i} + 1 ))
    while [[ \${${w}[${k} + 1]-} == "\\\\'" && \${${w}[${k} + 2]-} == "'" ]]; do ${k}=$(( ${k} + 3 )); done
    \\builtin printf -v ${e} %s "'" "\${${w}[@]:${a}:${k} - ${a} + 1}"
  elif [[ \${${w}[${i}]} == *"trap -- \\\\'" ]]; then
    ${k}=${i} ${e}="\\\\'"
  fi
  ${g}=\${${w}[${k} + 1]-}
  ${g}=\${${g}%%$'\\n'*}
  case $${g} in
    " DEBUG") ${T}_lDEBUG="trap -- $${e} DEBUG"$'\\n' ;;
    " ERR") ${T}_lERR="trap -- $${e} ERR"$'\\n' ;;
    " RETURN") ${T}_lRETURN="trap -- $${e} RETURN"$'\\n' ;;
    *) ${k}=$${m} ;;
  esac
  ${i}=$(( ${k} + 1 ))
done`;
}
