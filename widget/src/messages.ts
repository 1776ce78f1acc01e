export const MESSAGES = {
  sending: "Sending…",
  busy: "Busy, retrying…",
  busyGaveUp: "Support is busy right now. Please try again in a moment.",
  unreachable: "Could not reach support. Check your connection and try again.",
  unavailable: "The support form is not available right now. Please try again later.",
  stillSending: "Your request is still being sent. Please try again in a moment.",
  thanks: (n: number | undefined) =>
    n === undefined || Number.isNaN(n) ? "Thanks! Your ticket has been received." : `Thanks! Your ticket number is #${n}.`,
  loading: "Loading…",
  articleFailed: "The article could not be loaded. Please try again later.",
  gone: "This request is no longer available.",
  noMessages: "No replies yet. We will answer here.",
  newReply: "New reply from support.",
  replySent: "Reply sent."
}
