/**
 * Building DOM without a framework: `h('button', { class: 'x', onclick }, 'Take over')`.
 * Text children become text nodes, so nothing an agent printed is ever parsed as HTML.
 */

type Attributes = Record<string, string | number | boolean | null | undefined | EventListener>;
export type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') {
      element.addEventListener(name.replace(/^on/, ''), value);
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  element.append(...children.filter((child): child is Node | string => Boolean(child)));
  return element;
}

/** Replaces every child of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren(...children.filter((child): child is Node | string => Boolean(child)));
}

/**
 * Puts `wanted` in `parent` in order, moving only children that are out of place: a row that
 * stays where it was keeps the keyboard's focus and whatever was being typed in it.
 */
export function placeChildren(parent: Element, wanted: readonly Element[]): void {
  const keep = new Set<Element>(wanted);
  for (const child of [...parent.children]) if (!keep.has(child)) child.remove();
  wanted.forEach((child, index) => {
    if (parent.children[index] !== child)
      parent.insertBefore(child, parent.children[index] ?? null);
  });
}
