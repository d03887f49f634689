// Which links in an answer are links at all. Model text can repeat any link
// planted in a document, so only an absolute http(s) address with a host and
// without credentials becomes a link; the Go side (App.OpenLink) applies the
// same rule again before anything is opened.

/** The longest address treated as a link; the Go side has the same bound. */
const MAX_LINK_LENGTH = 8 << 10;

/** Returns href unchanged when it may be offered for opening, else null. */
export function webLink(href: string): string | null {
  if (href.length > MAX_LINK_LENGTH) return null;
  // The scheme must be written out: relative and protocol-relative links would
  // resolve against the app's own origin.
  if (!/^https?:\/\/[^/]/i.test(href)) return null;
  // Spaces, control characters and backslashes make the host a browser sees
  // differ from the one shown.
  if (/[\s\p{Cc}\\]/u.test(href)) return null;
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.hostname === '' || url.username !== '' || url.password !== '') return null;
  return href;
}

/** The host a link really goes to (IDN names in their ASCII form), for the confirmation. */
export function linkHost(href: string): string {
  try {
    return new URL(href).host;
  } catch {
    return '';
  }
}
