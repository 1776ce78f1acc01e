export const MESSAGES = {
  sending: "Sending…",
  busy: "Busy, retrying…",
  tooMany: (seconds: number) => `Too many requests. Try again in ${seconds} s.`,
  unreachable: "Could not reach support. Check your connection and try again.",
  unavailable: "The support form is not available right now. Please try again later.",
  stillSending: "Your request is still being sent. Please try again in a moment.",
  whoAreYou: "We couldn't confirm who you are. Please reload the page.",
  thanks: (n: number | undefined) =>
    n === undefined || Number.isNaN(n) ? "Thanks! Your ticket has been received." : `Thanks! Your ticket number is #${n}.`,
  loading: "Loading…",
  articleFailed: "The article could not be loaded. Please try again later.",
  gone: "This request is no longer available.",
  byEmail: "To read this request, open the link in the email we sent you.",
  noMessages: "We will answer here.",
  newReply: (name: string) => `New reply from ${name}`,
  sent: "Sent",
  reconnecting: "Reconnecting…",
  suggested: (titles: string[]) => `Articles that might help: ${titles.join("; ")}`,
  uploading: "Uploading the file…",
  tooLarge: "The file is too large: choose one of at most 10 MB.",
  noFile: "The file could not be downloaded. Please try again.",
  fileAgain: "The file could not be attached. Please try again."
}
