/**
 * The console's one HTML page. Every URL is relative to /ui/ so the console also works behind a
 * proxy that mounts the admin API under a prefix. No inline script or style: the CSP forbids them.
 */
export function consolePage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gregor console</title>
<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%23264d73'/%3E%3Cpath d='M4 11V5h3M9 11V5h3' stroke='white' stroke-width='2' fill='none'/%3E%3C/svg%3E">
<link rel="stylesheet" href="./app.css">
<script type="module" src="./js/main.js"></script>
</head>
<body>
<noscript>The gregor console needs JavaScript. The admin API itself is at <a href="../docs">/docs</a>.</noscript>
<div id="app"></div>
</body>
</html>
`;
}

/** Same-origin everything; data: only for the icon. Charts are inline SVG elements, not images. */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
