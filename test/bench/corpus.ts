/**
 * A synthetic help centre for the search benchmark. Search cost depends on how many articles a
 * query matches and how long they are, so the corpus mixes a few dozen support topics with
 * shared filler, and bodies run 80–200 words like real help articles. A seeded PRNG makes every
 * run search the same corpus.
 */

export interface SeedArticle {
  readonly title: string
  readonly slug: string
  readonly body: string
  readonly category: string
  readonly published: true
}

interface Topic {
  readonly category: string
  /** nouns a title is built around */
  readonly subjects: ReadonlyArray<string>
  /** sentences specific to the topic; `{s}` is replaced by one of the subjects */
  readonly sentences: ReadonlyArray<string>
}

const topics: ReadonlyArray<Topic> = [
  {
    category: "billing",
    subjects: ["invoice", "VAT receipt", "billing address", "credit card", "payment method", "billing history"],
    sentences: [
      "Invoices are issued on the first day of each billing cycle and sent to the billing contact.",
      "You can download any past invoice as a PDF from the billing history page.",
      "To add a VAT number to your invoices, open Settings and then Billing details.",
      "If your {s} is out of date, payments may be declined by your bank.",
      "Only account owners and billing admins can change the {s}.",
      "Credit card payments are processed securely and we never store the full card number."
    ]
  },
  {
    category: "billing",
    subjects: ["refund", "payment failure", "declined payment", "charge", "proration"],
    sentences: [
      "Refunds are issued to the original payment method within five to ten business days.",
      "A payment can fail when the card has expired or the bank flags the charge as unusual.",
      "We retry a failed payment three times before the subscription is paused.",
      "If you were charged twice, contact support with both invoice numbers and we will refund the duplicate.",
      "Annual plans can be refunded within thirty days of the {s}.",
      "Proration credits appear on the next invoice when you change plans mid cycle."
    ]
  },
  {
    category: "billing",
    subjects: ["subscription", "plan", "trial", "seat count", "annual plan"],
    sentences: [
      "You can upgrade or downgrade your plan at any time from the subscription page.",
      "Cancelling a subscription keeps your data available until the end of the billing period.",
      "Free trials last fourteen days and do not require a credit card.",
      "Adding seats to your {s} is billed immediately on a prorated basis.",
      "Downgrading may disable features that are only included in higher plans."
    ]
  },
  {
    category: "account",
    subjects: ["password", "password reset link", "forgotten password", "account password"],
    sentences: [
      "To reset your password, click Forgot password on the login page and follow the email link.",
      "Password reset links expire after one hour for your security.",
      "Passwords must be at least twelve characters long and cannot match your previous three passwords.",
      "If the reset email does not arrive, check your spam folder or ask an admin to resend it.",
      "Changing your {s} signs you out on every other device."
    ]
  },
  {
    category: "account",
    subjects: ["login", "sign in", "session", "locked account", "login error"],
    sentences: [
      "If you cannot log in, make sure you are using the email address your account was created with.",
      "After five failed login attempts the account is locked for fifteen minutes.",
      "Clearing cookies often fixes a login loop where the page keeps redirecting.",
      "Sessions expire after thirty days of inactivity and you will need to sign in again.",
      "A {s} problem is sometimes caused by a browser extension blocking cookies."
    ]
  },
  {
    category: "security",
    subjects: ["two factor authentication", "2FA device", "authenticator app", "recovery code", "SSO", "SAML"],
    sentences: [
      "Two factor authentication adds a one time code from an authenticator app to every login.",
      "Store your recovery codes somewhere safe: each code works once if you lose your 2FA device.",
      "Admins can require two factor authentication for everyone in the workspace.",
      "Single sign on with SAML is available on the Enterprise plan.",
      "To set up SSO, add our metadata URL to your identity provider and map the email attribute.",
      "If you lost your {s}, an admin can reset it after verifying your identity."
    ]
  },
  {
    category: "developers",
    subjects: ["API key", "API token", "rate limit", "REST API", "API request"],
    sentences: [
      "Create an API key under Settings, Developers, and keep it secret like a password.",
      "Every API request must send the key in the Authorization header as a bearer token.",
      "The API allows a limited number of requests per minute; a 429 Too Many Requests response means you should retry later.",
      "Responses include RateLimit headers that tell you how many requests remain in the window.",
      "Revoking an {s} takes effect immediately for every integration that uses it.",
      "The REST API returns JSON and uses standard HTTP status codes for errors."
    ]
  },
  {
    category: "developers",
    subjects: ["webhook", "webhook signature", "webhook endpoint", "event delivery", "webhook secret"],
    sentences: [
      "Webhooks send an HTTP POST to your endpoint whenever a ticket is created or updated.",
      "Verify the webhook signature by computing an HMAC of the raw body with your webhook secret.",
      "Failed webhook deliveries are retried with backoff for up to a day.",
      "Your webhook endpoint must answer with a 2xx status within ten seconds.",
      "Rotate the {s} from the developer settings if you think it has leaked.",
      "Each event delivery carries a unique id so you can ignore duplicates."
    ]
  },
  {
    category: "data",
    subjects: ["export", "CSV export", "data export", "backup", "JSON export"],
    sentences: [
      "You can export all tickets and contacts as a CSV file from the data settings page.",
      "Large exports are prepared in the background and we email you a download link.",
      "Export files are kept for seven days and then deleted automatically.",
      "A JSON export includes messages and attachments metadata as well as tickets.",
      "Only admins can start a {s} because it contains every customer conversation."
    ]
  },
  {
    category: "data",
    subjects: ["import", "CSV import", "data migration", "spreadsheet upload"],
    sentences: [
      "Import contacts from a CSV file with one row per contact and an email column.",
      "Migrating from another help desk keeps ticket history, tags and assignees.",
      "Rows with an invalid email address are skipped and listed in the import report.",
      "A {s} of more than fifty thousand rows should be split into smaller files."
    ]
  },
  {
    category: "mobile",
    subjects: ["mobile app", "iOS app", "Android app", "push notification", "offline sync"],
    sentences: [
      "The mobile app is available for iOS and Android and syncs with your account automatically.",
      "If the mobile app does not sync, pull down on the inbox to refresh or sign out and in again.",
      "Push notifications can be turned on per device in the app settings.",
      "The app keeps recent tickets offline and syncs your replies when you are back online.",
      "Make sure the {s} is updated to the latest version before reporting a bug."
    ]
  },
  {
    category: "account",
    subjects: ["email notification", "notification settings", "email address", "team member", "invitation"],
    sentences: [
      "Choose which email notifications you receive under Profile, Notifications.",
      "If notifications stop arriving, add our sending domain to your allow list.",
      "To change your email address, confirm the new address from the verification email.",
      "Invite team members from the Team page; invitations expire after seven days.",
      "Removing a {s} does not delete the tickets they worked on."
    ]
  },
  {
    category: "troubleshooting",
    subjects: ["slow page", "error 500", "browser support", "outage", "loading problem"],
    sentences: [
      "We support the latest two versions of Chrome, Firefox, Safari and Edge.",
      "An error 500 means something went wrong on our side; it is usually fixed within minutes.",
      "Check the status page for ongoing incidents before contacting support.",
      "A slow dashboard is often caused by a very large saved view; try narrowing the filter.",
      "When you report a {s}, include the time, your browser and a screenshot."
    ]
  },
  {
    category: "account",
    subjects: ["account deletion", "workspace", "account owner", "data retention"],
    sentences: [
      "Deleting your account removes all tickets, contacts and articles after a thirty day grace period.",
      "Only the account owner can delete the workspace or transfer ownership.",
      "Data retention rules let you delete closed tickets automatically after a set time.",
      "You can request a copy of your data before the {s} is completed."
    ]
  }
]

/** Words every help article uses, so common terms match many rows like they would in a real help centre. */
const filler: ReadonlyArray<string> = [
  "This article explains the steps and the most common questions.",
  "If you still need help, contact our support team and include your account id.",
  "Changes usually take effect within a few minutes.",
  "Admins can see this option; other members may need to ask an admin.",
  "You can find the setting in the sidebar under Settings.",
  "We recommend trying this first in a test workspace.",
  "Screenshots in this guide may look slightly different from your version.",
  "Our team reviews feedback on this feature every month.",
  "Related articles are linked at the bottom of this page.",
  "Please note that some options depend on your plan."
]

const titleTemplates: ReadonlyArray<string> = [
  "How do I update my {s}",
  "How to manage your {s}",
  "Troubleshooting {s} problems",
  "Why is my {s} not working",
  "Understanding the {s}",
  "Common questions about the {s}",
  "Setting up your {s}",
  "What happens to my {s} when I change plans",
  "Fixing {s} errors",
  "Getting started with {s}"
]

/** Real users' searches, matched against the corpus above (all terms occur in it). */
export const searchQueries: ReadonlyArray<string> = [
  "reset password",
  "invoice",
  "refund",
  "webhook signature",
  "export csv",
  "two factor",
  "cancel subscription",
  "api key",
  "login error",
  "mobile app sync",
  "update credit card",
  "sso saml",
  "rate limit",
  "delete account",
  "email notifications",
  "upgrade plan",
  "payment failed",
  "import contacts",
  "invite team members",
  "vat receipt"
]

/** mulberry32: tiny, fast and good enough to vary text deterministically. */
export const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const pick = <A>(random: () => number, items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!

const wordCount = (text: string) => text.split(/\s+/).filter((word) => word !== "").length

const slugify = (text: string) =>
  text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "")

const article = (random: () => number, index: number): SeedArticle => {
  // a second topic now and then, as real articles cross-reference (billing + API, mobile + login)
  const topic = pick(random, topics)
  const other = random() < 0.3 ? pick(random, topics) : topic
  const subject = pick(random, topic.subjects)
  const title = pick(random, titleTemplates).replace("{s}", subject)
  const target = 80 + Math.floor(random() * 121)
  const sentences: Array<string> = []
  while (wordCount(sentences.join(" ")) < target) {
    const source = random() < 0.3 ? filler : random() < 0.8 ? topic.sentences : other.sentences
    sentences.push(pick(random, source).replace("{s}", pick(random, topic.subjects)))
  }
  // a body split into paragraphs, like the Markdown the admin API receives
  const paragraphs: Array<string> = []
  for (let i = 0; i < sentences.length; i += 3) paragraphs.push(sentences.slice(i, i + 3).join(" "))
  return {
    title,
    // the index keeps slugs unique; titles repeat on purpose
    slug: `${slugify(title)}-${index}`,
    body: paragraphs.join("\n\n"),
    category: topic.category,
    published: true
  }
}

/** `count` articles, the same ones on every run. */
export const generateArticles = (count: number, seed = 20240601): Array<SeedArticle> => {
  const random = prng(seed)
  return Array.from({ length: count }, (_, index) => article(random, index + 1))
}

const ticketSubjects: ReadonlyArray<string> = [
  "Cannot log in",
  "Charged twice this month",
  "Invoice missing VAT number",
  "Password reset email never arrives",
  "Webhook signature does not verify",
  "CSV export is empty",
  "Mobile app stuck syncing",
  "Need a refund for the annual plan",
  "Getting 429 Too Many Requests",
  "Two factor code rejected"
]

const ticketBodies: ReadonlyArray<string> = [
  "Hi, since this morning I get an error when I try to sign in. I already cleared my cookies. Can you help?",
  "I was billed twice for the same subscription on my credit card. Please refund the duplicate charge.",
  "Our finance team needs invoices with our VAT number. Where can I add it so past invoices are updated?",
  "We verify webhooks with the HMAC of the body but the signature never matches. What are we doing wrong?",
  "The export finished but the CSV file only has a header row. We have thousands of tickets."
]

/** A create-ticket body; `n` varies the subject so requests are not byte-identical. */
export const ticketPayload = (n: number) => ({
  subject: `${ticketSubjects[n % ticketSubjects.length]!} (#${n})`,
  body: ticketBodies[n % ticketBodies.length]!,
  // a bounded pool of customers, so contacts are found again as they would be in production
  sender_email: `customer${n % 1000}@example.com`
})
