/**
 * The few server-rendered pages (the interim dashboard, login and refusal pages): one frame,
 * every interpolated value escaped, no scripts, so nothing an agent printed can run here.
 */

/** Scripts and remote content are off for these pages; only inline styles are allowed. */
export const PAGE_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

/** `body` must already be HTML (escape what goes into it); `head` likewise. */
export function htmlPage(title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
${head}<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2rem; color: #1d1d1f; }
table { border-collapse: collapse; }
th, td { text-align: left; padding: .3rem .8rem; border-bottom: 1px solid #ddd; vertical-align: top; }
td code { white-space: pre-wrap; word-break: break-all; }
.muted { color: #777; }
</style>
</head>
<body>
${body}
</body>
</html>
`;
}

export function errorPage(status: number, message: string): string {
  return htmlPage(`jumpseat: ${status}`, `<h1>jumpseat</h1>\n<p>${escapeHtml(message)}</p>`);
}
