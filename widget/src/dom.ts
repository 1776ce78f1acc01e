type Attrs = Record<string, string | boolean | undefined>

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === true) node.setAttribute(name, "")
    else if (typeof value === "string") node.setAttribute(name, value)
  }
  node.append(...children)
  return node
}

export const viewSection = (testId: string, ...children: Array<Node | string>) =>
  h("section", { class: "v", "data-testid": testId, hidden: true }, ...children)

export const backButton = (testId: string, label: string) =>
  h("button", { type: "button", class: "r", "data-testid": testId }, label)

/** Focusable from script only, since focus moves to a view's heading when the view opens. */
export const heading = (testId: string, text = "") => h("h3", { tabindex: "-1", "data-testid": testId }, text)
