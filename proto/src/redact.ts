// What a node says about a failure travels on the wire and ends up in logs and in a video's failure
// reason (shown in the API, sent in webhooks). ffmpeg quotes its input and output URLs, which are
// presigned: their query is a credential. This is the one redactor both sides use.

/**
 * A text without the URLs in it: ffmpeg's `URL: message` prefix goes entirely, any other URL
 * becomes `(url)`.
 */
export function redactUrls(text: string): string {
  return text.replace(/https?:\/\/\S+?:\s/g, '').replace(/https?:\/\/\S+/g, '(url)');
}
