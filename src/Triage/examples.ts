import type { Category, Priority } from "../Domain/Fields.ts"

/** A support ticket as a customer wrote it, with the category and priority an agent gave it. */
export interface LabelledTicket {
  readonly subject: string
  readonly body: string
  readonly category: Category
  readonly priority: Priority
}

// a module, not a .json file: JSON imports need import attributes that Node, Deno, tsc and esbuild do not all accept alike
export const examples: ReadonlyArray<LabelledTicket> = [
  // billing
  {
    subject: "Charged twice this month",
    body: "Hi, I just checked my bank statement and Acme Cloud charged my card twice on the 3rd, both for $49. Can you refund the duplicate please?",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "Invoice needs our VAT number",
    body: "Our accounting department needs our VAT ID (DE812345678) to appear on invoices. Could you reissue the March invoice with it?",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "payment failed but card is fine",
    body: "got an email saying payment failed and the account will be downgraded in 3 days. the card works everywhere else. what is going on??",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "Credit for removed seats",
    body: "We removed 4 seats halfway through the billing cycle. Will we get a prorated credit automatically or do I need to ask for a refund?",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Pricing for nonprofits",
    body: "Do you offer a discount for registered charities? We're a small nonprofit with 6 staff and the Team plan is a stretch for our budget.",
    category: "billing",
    priority: "p4_low"
  },
  {
    subject: "Old company name on receipts",
    body: "The receipts still show our old company name, Brightline Ltd. We rebranded to Northlight Studio last month. How do I change it for future invoices?",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "You charged us AFTER we cancelled",
    body: "We cancelled our subscription on 14 February and I have the confirmation email. Today we were charged $299 for another month. I want this refunded immediately, this is not acceptable.",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "Switching monthly to annual",
    body: "If I switch from monthly to annual billing today, am I charged for the full year straight away, or is the rest of this month credited?",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Card declined, whole team dropped to free plan",
    body: "Our renewal card was declined overnight and now the whole team has been dropped to the free plan. Nobody can open the reports we need for today's board meeting. Please restore access while finance sorts out the card.",
    category: "billing",
    priority: "p1_critical"
  },
  {
    subject: "All invoices for last year",
    body: "where can I download all of last year's invoices in one go? our auditor wants them as PDFs",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "PO number on invoices",
    body: "Hello, our procurement team requires a purchase order number (PO-44812) on every invoice or they won't pay it. Is there a field for this in billing settings?",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Double charge after upgrading",
    body: "I upgraded from Team to Business and got charged for BOTH plans. That's a $600 difference on my company card. Please fix.",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "student plan?",
    body: "hey is there a cheaper plan for students, just using it for a uni project",
    category: "billing",
    priority: "p4_low"
  },
  {
    subject: "Invoices going to former employee",
    body: "Invoices are still being emailed to mark@harbourlane.co, who left in January. Please send them to accounts@harbourlane.co from now on.",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Can't pay overdue invoice",
    body: "I'm trying to pay the overdue invoice but the payment page keeps saying 'card authentication failed'. I've tried two different cards. Your email says we'll be suspended on Friday.",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "Downgrading to Team",
    body: "If we downgrade from Business to Team at the end of the month, do we keep what we paid for until the renewal date, and is there any fee?",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Sales tax charged to exempt org",
    body: "We're a tax-exempt organisation in Texas and you are charging us 8.25% sales tax. Our exemption certificate is attached. Please remove the tax and credit the past charges.",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "wrong plan, refund pls",
    body: "i signed up for the annual plan by mistake, meant to click monthly. it was like 10 min ago. can i get a refund and switch to monthly pls",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "Billing in EUR",
    body: "Is it possible to be billed in EUR instead of USD? The exchange fees on every payment add up for us.",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Are prices going up?",
    body: "I read on a forum that your prices go up next quarter. Will existing customers keep their current rate?",
    category: "billing",
    priority: "p4_low"
  },
  {
    subject: "February invoice never arrived",
    body: "Every month we get the invoice PDF by email but February's never came. The charge is on our card though. Can you resend it?",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Trial turned into a $588 charge",
    body: "My trial ended and I was charged $588 for a whole year without a single reminder email. I never meant to buy. Refund please, this is really not ok.",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "Company card expiring",
    body: "Our company card expires next month. What's the best way to swap it for the new one without interrupting the subscription?",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "URGENT - suspended for non-payment but we PAID",
    body: "Our workspace was suspended this morning for 'non-payment', but the invoice was paid by bank transfer on the 2nd (reference ACME-INV-20931). 40 agents cannot work. Reactivate it now please.",
    category: "billing",
    priority: "p1_critical"
  },
  {
    subject: "Billed for 15 seats, we have 12 users",
    body: "We have 12 active users but the invoice is for 15 seats. Do deactivated users still count towards the bill?",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Paying by wire transfer",
    body: "Can enterprise customers pay by wire transfer on net-30 terms? Our finance team doesn't use credit cards for software.",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Where do I enter a coupon",
    body: "Got a coupon code (FRIENDS20) at your webinar. Where do I put it in? Can't see a field at checkout.",
    category: "billing",
    priority: "p4_low"
  },
  {
    subject: "Charged in GBP instead of USD",
    body: "I was charged 79 GBP instead of 79 USD. That's a real difference for a business my size. Please correct it and refund the difference.",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "receipt for expenses",
    body: "Need a receipt with my name on it for my expense report, the current one only shows the company. thx",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "How is the prorated charge calculated?",
    body: "I added 2 users on the 18th and got a charge of $23.47. I expected $30. How is that worked out?",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Cancel and refund this month",
    body: "Your product does not do what the sales rep promised us. I want to cancel the subscription and get a full refund for this month, we have barely used it.",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "Reverse charge VAT on UK invoices",
    body: "We're a UK business. Should our invoices show reverse charge instead of 20% VAT? Our accountant flagged it during the quarterly return.",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Team vs Business plan",
    body: "What exactly do I get with Business that I don't get with Team, apart from SSO? Trying to decide before our renewal.",
    category: "billing",
    priority: "p4_low"
  },
  {
    subject: "Direct debit bounced",
    body: "We got a notice that the SEPA direct debit bounced. Our bank says they never received a mandate. Can you send the mandate request again? We don't want the account paused.",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "New billing address",
    body: "We moved offices. New billing address: 221 Kent Street, Sydney NSW 2000. Please update it so the next invoice is correct.",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Still waiting on my refund",
    body: "You promised a refund on ticket #4411 three weeks ago. Nothing on my card yet. I'm starting to think I need to file a chargeback with my bank.",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "Nonprofit discount not applied",
    body: "We were approved for the nonprofit discount last week, but the latest invoice still shows the full price.",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "paypal?",
    body: "just wondering if you accept paypal for the monthly plan",
    category: "billing",
    priority: "p4_low"
  },
  {
    subject: "What is the API overage line on my invoice",
    body: "Our invoice has an extra line 'API overage - 1.2M calls'. Where can I see the usage breakdown behind that number?",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "New card keeps getting declined",
    body: "I'm entering a new Visa in billing settings and it says 'Your card was declined' every time, but my bank sees no attempt at all. Payment is due tomorrow.",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "Separate invoices per department",
    body: "Could we get two invoices, one for Marketing (8 seats) and one for Support (20 seats)? They're on different cost centres.",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Every sub-account charged twice overnight",
    body: "Each of our 30 sub-accounts was charged twice overnight. That is thousands of dollars and our finance team is freaking out. This needs to be reversed today.",
    category: "billing",
    priority: "p1_critical"
  },
  {
    subject: "Quote for 200 agents",
    body: "We're evaluating Acme Cloud for our support organisation, roughly 200 agents. Could you send a formal quote with annual pricing and volume discounts?",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "renewal date",
    body: "when will I be billed next? can't find the renewal date anywhere in the settings",
    category: "billing",
    priority: "p4_low"
  },
  {
    subject: "Credit note for cancelled invoice",
    body: "Please issue a credit note for invoice INV-2024-0193. It was cancelled by mistake and our ERP needs a matching document to close it.",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Bill is 10x what it normally is",
    body: "This month's bill is $1,900 instead of our usual $200. The usage charges must be wrong, our traffic hasn't changed. Please look into it before we pay anything.",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "One bill for three workspaces",
    body: "We have three workspaces on three separate subscriptions. Can they be consolidated onto one bill and one card?",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Black Friday?",
    body: "Are you doing a Black Friday discount this year? We're planning to move to annual and would wait a couple of weeks for it.",
    category: "billing",
    priority: "p4_low"
  },
  {
    subject: "ABN rejected as tax ID",
    body: "The billing form won't accept our Australian ABN as a tax ID, it says invalid format. It's 11 digits with no spaces.",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Billed for Team after I downgraded",
    body: "I downgraded to Starter on the 1st and got a confirmation saying so, but I was billed $99 for Team again. Pls refund the difference.",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "Factures en français",
    body: "Bonjour, est-il possible de recevoir les factures en français ? Our French entity needs invoices in French for compliance.",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Cost of extra storage",
    body: "How much does additional file storage cost? We're at 80% of our 100 GB and growing.",
    category: "billing",
    priority: "p4_low"
  },
  {
    subject: "Disputed a charge by accident",
    body: "I disputed your charge with my bank by mistake, I thought it was a different company. How do I undo it? I don't want my account closed over this.",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Invoices older than 12 months",
    body: "The billing portal only shows invoices from the last 12 months. We need the older ones for a tax audit. Can you send them?",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Still charging me after I deleted my account",
    body: "I deleted my account in January and you're still taking money from my card every month. That's basically theft. Stop charging me and refund February and March.",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "Pause instead of cancel?",
    body: "We're a seasonal business and quiet from November to March. Can we pause billing over the winter instead of cancelling?",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Price lock on annual",
    body: "Does the annual plan lock the price for all 12 months, even if you raise prices in the meantime?",
    category: "billing",
    priority: "p4_low"
  },
  {
    subject: "bank transfer not showing",
    body: "bank transfer for invoice INV-8812 was sent 10 days ago and your system still shows 'overdue'. we just got a suspension warning. please check",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "Send invoices to two addresses",
    body: "Can invoice emails go to two addresses? Both me and our bookkeeper need a copy.",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Renewal paperwork",
    body: "Our contract renews on 1 June. Legal needs the updated order form and your W-9 before they'll sign the renewal.",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Refund policy for annual plans",
    body: "What is your refund policy if we cancel an annual plan after two months?",
    category: "billing",
    priority: "p4_low"
  },
  {
    subject: "Charge on my card, I have no account",
    body: "There is a $149 charge from ACME CLOUD on my credit card, but I don't have an account with you. Maybe someone mistyped their card number? Please find out and refund it.",
    category: "billing",
    priority: "p2_high"
  },
  {
    subject: "Launch discount disappeared",
    body: "Our 20% launch discount is missing from the last invoice. The agreement we signed says it applies for the first two years.",
    category: "billing",
    priority: "p3_medium"
  },
  {
    subject: "Payment retry moved every agent to Free",
    body: "Since your billing system retried our payment last night, every agent has been moved to the Free plan, automations are off and customers aren't getting answers. Our support is dead in the water. Call me on +1 415 555 0134.",
    category: "billing",
    priority: "p1_critical"
  },
  // bug
  {
    subject: "Site down?",
    body: "Acme Cloud isn't loading for anyone in our office, just a white screen. Your status page says everything is green. We have 50 agents sitting idle.",
    category: "bug",
    priority: "p1_critical"
  },
  {
    subject: "API returning 500 on every request",
    body: "Since 09:40 UTC every call to POST /v2/tickets returns 500 Internal Server Error. Our whole integration is down. Example request id: req_8f2c91.",
    category: "bug",
    priority: "p1_critical"
  },
  {
    subject: "CSV export missing columns",
    body: "When I export tickets to CSV, the tags and assignee columns come out empty even though the tickets have both.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "iOS app crashes on launch",
    body: "The iOS app crashes right after the splash screen since yesterday's update. iPhone 13, iOS 17.4. I can't reply to customers when I'm away from my desk.",
    category: "bug",
    priority: "p2_high"
  },
  {
    subject: "Timestamps are 5 hours off",
    body: "All timestamps in the ticket view are 5 hours off. My profile is set to America/Chicago. It was fine last week.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "DATA LOSS - tickets disappeared",
    body: "About 300 tickets from last week are just gone from our inbox. Not in trash, not archived, not anywhere. This is a disaster, we need them back.",
    category: "bug",
    priority: "p1_critical"
  },
  {
    subject: "Search can't find tickets by email address",
    body: "Searching for a customer's email address returns no results, but I can see their ticket right there in the list.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Typo on notifications page",
    body: "Small thing: on Settings > Notifications it says 'Recieve a daily digest'. Should be 'Receive'.",
    category: "bug",
    priority: "p4_low"
  },
  {
    subject: "Webhooks stopped firing",
    body: "Our endpoint hasn't received a single ticket.created event since Tuesday. The endpoint is up and returns 200 to manual tests, and the delivery log in your UI is empty.",
    category: "bug",
    priority: "p2_high"
  },
  {
    subject: "Dark mode editor text unreadable",
    body: "In dark mode the text in the reply editor is dark grey on black. Almost impossible to read.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Attachments over 2MB fail",
    body: "Uploading any attachment bigger than about 2 MB fails with 'Upload error'. The limit is supposed to be 25 MB. I have customers waiting on documents from me.",
    category: "bug",
    priority: "p2_high"
  },
  {
    subject: "Getting every notification twice",
    body: "I receive each email notification two times. There's only one notification rule set up on my profile.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Extremely slow for everyone in EU",
    body: "Pages take 30+ seconds to load for all users in our EU workspace. Our production support is basically at a standstill.",
    category: "bug",
    priority: "p1_critical"
  },
  {
    subject: "Weekly report totals don't add up",
    body: "The weekly report says 412 tickets closed, but adding up the daily numbers gives 389. Which one is right?",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "android app not syncing",
    body: "android app still shows tickets from 2 days ago, pull to refresh does nothing. logged out and back in, same thing",
    category: "bug",
    priority: "p2_high"
  },
  {
    subject: "Emoji in subject turns into ????",
    body: "If a customer puts an emoji in the email subject, the ticket subject shows up as ????. The body is fine.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "I can see another company's tickets!!",
    body: "When I opened the dashboard this morning the ticket list showed tickets from a company called Fernwood Dental. We are not Fernwood Dental. This looks like a serious data leak.",
    category: "bug",
    priority: "p1_critical"
  },
  {
    subject: "Zapier trigger 20 minutes late",
    body: "The 'New ticket' Zapier trigger takes 15 to 20 minutes to fire. Your docs say near real time.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Macros do nothing",
    body: "Clicking a macro does nothing anymore. No error, no change to the ticket. I use macros for most of my replies so this is slowing me down a lot.",
    category: "bug",
    priority: "p2_high"
  },
  {
    subject: "Get started button goes to 404",
    body: "The 'Get started' button in the welcome email leads to a 404 page.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "429s way below the documented limit",
    body: "We get 429 Too Many Requests at about 20 requests a minute, far below the documented 600/min. Our sync job keeps failing halfway.",
    category: "bug",
    priority: "p2_high"
  },
  {
    subject: "Saved view loses its filter",
    body: "Every time I reload the page my saved view 'Urgent - EMEA' loses its priority filter and shows everything.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Replies not reaching ANY customer",
    body: "None of our replies since noon are reaching customers. They show as sent in Acme, but customers get nothing. We checked with five different customers. This is critical for us.",
    category: "bug",
    priority: "p1_critical"
  },
  {
    subject: "Board drag and drop glitchy",
    body: "Dragging a card between columns on the board sometimes snaps it back where it started. Maybe 1 time in 4. Firefox 124 on Windows.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Import stuck at 99%",
    body: "I started a CSV import of 8,000 contacts two hours ago and the progress bar has been sitting at 99% for most of that time.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Tooltip covers Save button",
    body: "On smaller laptop screens the tooltip on 'Assign' covers the Save button. Minor but a bit annoying.",
    category: "bug",
    priority: "p4_low"
  },
  {
    subject: "500 when saving a custom field",
    body: "Adding a dropdown custom field gives 'Something went wrong (500)'. Tried Chrome and Safari. We need it for a workflow we launch on Monday.",
    category: "bug",
    priority: "p2_high"
  },
  {
    subject: "Widget missing in Safari",
    body: "The chat widget bubble doesn't show up on our website in Safari 17. Chrome and Firefox are fine.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "is acme down??",
    body: "getting 502 bad gateway on every page, whole support team is blocked. anyone there?",
    category: "bug",
    priority: "p1_critical"
  },
  {
    subject: "Duplicate contacts being created",
    body: "Every time a customer replies from a different email alias a new contact is created, even though the merge rule is switched on.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Webhook signatures don't validate since last release",
    body: "Signatures on your webhook deliveries stopped validating after your last release. We compute HMAC-SHA256 over the raw body exactly as documented, and it worked for a year.",
    category: "bug",
    priority: "p2_high"
  },
  {
    subject: "SLA timer runs on weekends",
    body: "The SLA countdown keeps running on Saturdays and Sundays although our business hours are set to Monday to Friday.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Auto-close rule closed tickets with new replies",
    body: "Our 'close after 7 days' automation closed 60 tickets that had customer replies yesterday. Customers are angry that their tickets were closed on them.",
    category: "bug",
    priority: "p2_high"
  },
  {
    subject: "Bell icon misaligned",
    body: "The bell icon in the header sits a couple of pixels lower than the other icons. Just FYI.",
    category: "bug",
    priority: "p4_low"
  },
  {
    subject: "PDF export cuts off long threads",
    body: "Long ticket threads exported to PDF stop after page 3. The rest of the conversation is just missing.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Reply editor freezes the tab",
    body: "The reply box freezes as soon as I start typing and the whole tab stops responding. Cleared cache, disabled extensions, tried another browser. I literally cannot answer tickets.",
    category: "bug",
    priority: "p2_high"
  },
  {
    subject: "All API keys returning 401",
    body: "Every API key we have returns 401 since 8am, even one I created five minutes ago. Our production integration is down for all our stores.",
    category: "bug",
    priority: "p1_critical"
  },
  {
    subject: "Slack posts to the wrong channel",
    body: "New tickets get posted to #general instead of #support-alerts, although the integration settings clearly say #support-alerts.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Certificate warning on our help center",
    body: "Our help center on help.ourbrand.com shows a certificate warning in Chrome. It looks like the certificate expired yesterday. Customers are emailing us asking if we got hacked.",
    category: "bug",
    priority: "p2_high"
  },
  {
    subject: "Sorting by priority is wrong",
    body: "Sorting the list by priority puts p3 above p2. Looks like it sorts alphabetically by label instead of by urgency.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Response time chart never loads",
    body: "The 'Response time' chart on the dashboard just spins forever. The other charts load fine.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "All old attachments say File not found",
    body: "Every attachment older than Monday now shows 'File not found'. It affects all tickets and all users. We need those files for legal reasons, please tell me they aren't deleted.",
    category: "bug",
    priority: "p1_critical"
  },
  {
    subject: "Shortcut doesn't work with German keyboard",
    body: "The 'g i' shortcut to jump to the inbox does nothing with a German keyboard layout.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Redirect loop when opening tickets",
    body: "Since your release this morning, opening any ticket sends me into an endless redirect loop. Only me so far, my colleagues are fine. I can't work my queue.",
    category: "bug",
    priority: "p2_high"
  },
  {
    subject: "Bulk edit only changes first 50",
    body: "If I select 200 tickets and change the status, only the first 50 are updated. The rest stay open.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Spanish UI strings",
    body: "In the Spanish interface some buttons are still in English and 'Cerrar boleto' sounds odd for closing a ticket. Nothing urgent.",
    category: "bug",
    priority: "p4_low"
  },
  {
    subject: "Same webhook retried 4000 times",
    body: "Your system retried the same webhook delivery about 4,000 times in an hour and overloaded our small server. Our endpoint returned 200 every single time!",
    category: "bug",
    priority: "p2_high"
  },
  {
    subject: "Merging loses internal notes",
    body: "When I merge two tickets, the internal notes from the second ticket vanish.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Replies cut off at ---",
    body: "Customer replies that contain a line with '---' get truncated at that line, so we lose half of what they wrote.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Favicon gone from help center",
    body: "Our custom favicon stopped showing on the help center. Not urgent, just noticed it.",
    category: "bug",
    priority: "p4_low"
  },
  {
    subject: "Help center returning 503",
    body: "Our public help center returns 503 for every visitor. We have a product launch today and customers can't reach any docs. Please escalate.",
    category: "bug",
    priority: "p1_critical"
  },
  {
    subject: "import fails with encoding error",
    body: "import fails with 'invalid byte sequence for encoding UTF8' even tho the file is UTF-8, tried 3 times. we need to migrate before our old tool shuts off on friday",
    category: "bug",
    priority: "p2_high"
  },
  {
    subject: "@mentions don't notify",
    body: "When I @mention a colleague in an internal note they don't get any notification, not by email and not in the app.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Unread badge wrong",
    body: "The inbox badge says 7 unread, but there are no unread tickets in any view.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Cursor pagination returns duplicates",
    body: "GET /v2/contacts with cursor pagination returns some contacts twice across pages and skips others. Seems to happen when contacts are created while we page through.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Tab title unread count stuck",
    body: "The browser tab keeps saying '(3) Acme Cloud' after I've read everything.",
    category: "bug",
    priority: "p4_low"
  },
  {
    subject: "Owner gets Access denied on Reports",
    body: "Our admin gets 'Access denied' on the Reports page although she is the workspace Owner. Everyone else can open it. She needs the numbers for a review tomorrow.",
    category: "bug",
    priority: "p2_high"
  },
  {
    subject: "Automation emailing ALL customers",
    body: "Since about 2pm an automation is sending 'Your ticket was closed' to EVERY customer with an open ticket. Thousands of emails have gone out. Stop it asap!",
    category: "bug",
    priority: "p1_critical"
  },
  {
    subject: "HEIC photos show as broken images",
    body: "Photos that customers send from iPhones (HEIC) show a broken image icon. We have to download them to look at them.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Time tracking rounds wrong",
    body: "Time logged as 1h 30m shows up as 1.3 hours in reports. It should be 1.5.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "Can't publish any article",
    body: "Clicking Publish on any help center article spins for a while and then says 'Failed to save'. Our docs update has to go out today.",
    category: "bug",
    priority: "p2_high"
  },
  {
    subject: "Scrollbar flicker",
    body: "There's a tiny flicker of the scrollbar when the ticket list refreshes. Purely cosmetic.",
    category: "bug",
    priority: "p4_low"
  },
  {
    subject: "Search takes 10 seconds",
    body: "Searching takes 8-10 seconds in our workspace (about 120k tickets). It used to be instant a month ago.",
    category: "bug",
    priority: "p3_medium"
  },
  {
    subject: "database connection error on every page",
    body: "We're getting 'database connection error' on every single page. The entire support team of 25 can't work and it's been 40 minutes. What is happening?",
    category: "bug",
    priority: "p1_critical"
  },
  // account
  {
    subject: "Can't log in",
    body: "I can't log in since this morning. It says my password is wrong, but I've reset it twice already.",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "Lost my phone with the authenticator",
    body: "I got a new phone and didn't move my authenticator app over. Now I'm locked out of my account, and I'm the only admin on our workspace.",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "Changing my login email",
    body: "Our company changed its domain, so my email goes from j.smith@old-domain.com to j.smith@new-domain.com. How do I update my login?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Our admin account was hacked",
    body: "Someone logged into my admin account from an IP in another country last night, changed notification settings and exported our contacts. I've changed my password. Please help us secure the account now.",
    category: "account",
    priority: "p1_critical"
  },
  {
    subject: "New hire can't sign in with Okta",
    body: "Our new hire Priya can't sign in with Okta SSO, she gets 'user not provisioned'. Everyone else signs in fine.",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "SSO broken - nobody can log in",
    body: "Since we rotated our SAML certificate in Azure AD, nobody in the company can log in to Acme Cloud. 120 people locked out. We uploaded the new certificate in your settings as well.",
    category: "account",
    priority: "p1_critical"
  },
  {
    subject: "Please delete my account",
    body: "Please delete my account and all personal data associated with it. I no longer use the service.",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Transfer workspace ownership",
    body: "Our workspace owner has left the company. How can ownership be transferred to me? I'm already an admin.",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Remove ex-employee immediately",
    body: "Please remove tom.baker@ourco.com from our workspace right away. He no longer works here and I can't find where to remove him.",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "2FA code always invalid",
    body: "My authenticator codes are always rejected with 'invalid code'. The time on my phone is set automatically. I can't get in.",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "Rename workspace",
    body: "How can I rename our workspace from 'Test Acme' to 'Greenleaf Support'? The name shows up in emails to customers.",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Password reset email never comes",
    body: "I've requested a password reset four times. Nothing in my inbox or in spam. I can't get into my account at all.",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "Make my colleague an admin",
    body: "Can you make my colleague Luis an admin? The owner is on leave for two weeks and we need someone who can manage users.",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Possible breach - logins from unknown IP",
    body: "Our audit log shows successful logins to 14 different agent accounts from the same unknown IP in the last hour. We think we've been breached. Please lock the workspace.",
    category: "account",
    priority: "p1_critical"
  },
  {
    subject: "Two accounts, want one",
    body: "I accidentally made two accounts, one with Google sign-in and one with email and password. Can they be merged into one?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "account locked!!",
    body: "account locked after too many failed login attempts. it says wait 24 hours but I need to work TODAY",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "Require 2FA for everybody",
    body: "Is there a setting to make two-factor authentication mandatory for all users in our workspace?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Accent in my name won't save",
    body: "My name shows as 'Jenn Lopez' but it should be 'Jennifer López'. The profile page won't save the accent.",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Invitation link expired",
    body: "I was invited to my team's workspace but the link says it has expired. My manager is on holiday so she can't send a new one.",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Deactivate my seat during leave",
    body: "I'm going on parental leave for six months. Can my user be deactivated so it doesn't take up a seat, and reactivated when I'm back with my history intact?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Everyone logged out, login says authentication unavailable",
    body: "Everyone at our company was logged out at 10:00 and the login page now only says 'Authentication service unavailable'. No one can log in and we're open for business.",
    category: "account",
    priority: "p1_critical"
  },
  {
    subject: "Copy of my personal data",
    body: "Under the GDPR I would like a copy of all the personal data you hold about me, please.",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Sign in with Google error 400",
    body: "Sign in with Google gives 'Error 400: redirect_uri_mismatch'. It worked yesterday. I have no password for the account, Google is the only way I log in.",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "ACS URL and entity ID for Okta",
    body: "We upgraded to Business for SSO. Where do I find the ACS URL and the entity ID to set up the SAML app in Okta?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Changed my email and now locked out",
    body: "I changed my login email and never got the confirmation. Now neither the old nor the new address works on the login page.",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "Regenerate recovery codes",
    body: "Where can I generate new 2FA recovery codes? I think I've lost the old ones and want a fresh set before I need them.",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Our only owner left, nobody can manage settings",
    body: "The only owner account belongs to someone who left, and their mailbox is already deleted. None of us can change settings or add users. How do we get control back?",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "typo in username",
    body: "can i change my username? i typed it wrong at signup (jhonsmith instead of johnsmith)",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Restricted role for finance team",
    body: "I want our finance people to see billing-related tickets only, not the whole inbox. How do I set up a restricted role for them?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Removed our lead agent by accident",
    body: "I accidentally removed our lead agent from the workspace. Can you restore her user with her ticket history and settings? She's stuck until then.",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "avatar",
    body: "how do I change my profile photo? the current one is from 2015 lol",
    category: "account",
    priority: "p4_low"
  },
  {
    subject: "API key leaked on GitHub - data accessed",
    body: "A developer pushed one of our API keys to a public GitHub repo. We revoked it, but the logs show calls from unknown IPs that exported customer data. We need urgent help investigating this security incident.",
    category: "account",
    priority: "p1_critical"
  },
  {
    subject: "Logged out every 30 minutes",
    body: "I get logged out every 30 minutes or so. Is the session length a setting we can change for our workspace?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "SMS codes go to my old number",
    body: "I changed my phone number and the SMS login codes still go to the old one. I can't log in.",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "Closing our workspace",
    body: "We're winding down the company at the end of the month. What's the process for closing our workspace, and can we export everything first?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Two owners on one workspace",
    body: "Is it possible to have two owners on one workspace? We'd like some redundancy in case one of us is away.",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Login link says already used",
    body: "The magic login link you email me says 'this link has already been used', even when I click it straight away. Could Outlook's safe links be opening it first? I can't get in.",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "SCIM with Azure AD",
    body: "We'd like to use SCIM with Azure AD to provision and deprovision users automatically. Is SCIM on our plan, and where do we get the token?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Verify our domain for auto-join",
    body: "How do I verify our domain so new employees with an @fernwood.io address can join our workspace without an invite?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Stuck in my old employer's workspace",
    body: "When I log in I land in my previous employer's workspace and can't find any way to switch to my new company's one. My new team is waiting for me.",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "Notifications to a different address",
    body: "I'd like notifications sent to a different address from my login email. Is that possible?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Owner email changed - we did NOT do this",
    body: "The email on our owner account was changed to an address we don't recognise, and then we got a 'password changed' alert. We didn't do either and we can't log in. Please freeze the account immediately.",
    category: "account",
    priority: "p1_critical"
  },
  {
    subject: "Move 2FA from SMS to an app",
    body: "I'd like to switch my two-factor from SMS to an authenticator app. How do I do that without locking myself out?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Invite says email already in use",
    body: "I'm trying to accept the invitation to Brightwave's workspace but it says 'email already in use'. I had a trial years ago. I start my new job with this tool today, please help.",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "Who removed our intern?",
    body: "Is there a log of which admin removed a user? Someone deleted our intern's account and nobody owns up to it.",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Maximum password length?",
    body: "The password form rejects the 64-character passwords my password manager generates. Is there a maximum length?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Contractor can't log in after SSO enforcement",
    body: "We turned on SSO enforcement and now our contractor, who isn't in our identity provider, can't log in at all. Can one user be exempted?",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "personal time zone",
    body: "where do I set my own time zone? my profile still shows UTC and I'm in Denver",
    category: "account",
    priority: "p4_low"
  },
  {
    subject: "One login, several workspaces",
    body: "Can I use a single login for several workspaces? My agency manages support for a few different clients.",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Email verification loop",
    body: "I keep being asked to verify my email, but the verification link just takes me back to the same page. I can't use my account.",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "Customer asked to be forgotten",
    body: "One of our end customers asked to be forgotten under GDPR. How do we delete a contact and all of their tickets permanently?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Enforced 2FA and now all agents are locked out",
    body: "I switched on mandatory 2FA for the workspace and now all 60 agents are stuck on a screen asking for a code they never set up. Nobody can log in. Please revert it asap.",
    category: "account",
    priority: "p1_critical"
  },
  {
    subject: "Owner address is a personal gmail",
    body: "Our owner account uses someone's personal gmail address. We'd like the company address on it instead. What's the safest way?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Interface in Dutch",
    body: "How do I switch my interface language to Dutch?",
    category: "account",
    priority: "p4_low"
  },
  {
    subject: "Reset phone, recovery codes at the office",
    body: "I factory reset my phone and lost my authenticator. My recovery codes are in a drawer at the office and I'm travelling for two weeks. Is there another way to verify it's me?",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "List of admins",
    body: "Can you tell me which users in our workspace currently have admin rights? I'm doing our quarterly access review.",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "New sign-in email every day",
    body: "I get a 'new sign-in' email every day from the same laptop. Can it remember the device?",
    category: "account",
    priority: "p4_low"
  },
  {
    subject: "Disabled by administrator, but I'm the administrator",
    body: "My account says 'disabled by administrator'. I AM the administrator. What happened and how do I get back in?",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "Map Okta groups to roles",
    body: "With SAML SSO, can Okta groups be mapped to roles in Acme Cloud, so that 'Support Leads' become admins automatically?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "signature",
    body: "where do i set my email signature for replies? want to add my phone number to it",
    category: "account",
    priority: "p4_low"
  },
  {
    subject: "Android app says invalid credentials",
    body: "Web login works fine, but the Android app says 'invalid credentials' with the exact same password. I need the app today for on-call.",
    category: "account",
    priority: "p2_high"
  },
  {
    subject: "Reactivate my old account",
    body: "I had an account in 2022 under maria@tidewater.co. Can I reactivate it and get my old data back?",
    category: "account",
    priority: "p3_medium"
  },
  {
    subject: "Password reset emails nobody requested",
    body: "All of our admins got password reset emails in the past hour that none of us requested. Is someone attacking our account? Please look into this urgently.",
    category: "account",
    priority: "p1_critical"
  },
  {
    subject: "Limited access for a contractor",
    body: "We want a contractor to see only one group's tickets for the next three months. Is there a guest or limited user type?",
    category: "account",
    priority: "p3_medium"
  },
  // feature_request
  {
    subject: "Dark mode please",
    body: "Would love a proper dark mode for the agent inbox. My eyes after a 10 hour shift...",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Scheduled reports to Google Sheets",
    body: "It would be great if scheduled reports could go straight into a Google Sheet instead of arriving as a CSV attachment.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Reassign all tickets of one agent",
    body: "Please add a way to reassign all of one agent's tickets to someone else in one go. When someone goes on holiday we move them one by one.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Audit log export needed for SOC 2",
    body: "For our SOC 2 audit we need to export the audit log, and right now it can only be viewed in the UI. This is blocking our certification, could it be prioritised?",
    category: "feature_request",
    priority: "p3_medium"
  },
  {
    subject: "Microsoft Teams integration",
    body: "Any plans for a Teams integration like the Slack one? Half our company lives in Teams and never opens Slack.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Snooze a ticket",
    body: "Feature idea: let us snooze a ticket until a date and have it pop back into the inbox then.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "custom fields on contacts",
    body: "would be nice to have custom fields on contacts too, not only on tickets. e.g. contract tier, account manager",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Webhook event for tag changes",
    body: "Could you add a webhook event for when tags change on a ticket? We only get created, updated and closed.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Keyboard shortcuts for macros",
    body: "Suggestion: let us bind macros to keyboard shortcuts. It would save me hundreds of clicks a day.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "More granular roles",
    body: "We'd like a role that can view reports but not change settings. At the moment it's all-or-nothing admin.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "EU data residency",
    body: "We'd need EU-only hosting to roll Acme Cloud out to our German subsidiary. Is that on the roadmap? Our works council requires it before we can expand.",
    category: "feature_request",
    priority: "p3_medium"
  },
  {
    subject: "Reactions on internal notes",
    body: "Tiny request: emoji reactions on internal notes. A thumbs up beats yet another 'ok thanks' note.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Different web form per issue type",
    body: "It'd be awesome if the web form could have different templates per issue type, like one for bug reports and one for billing questions.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "SLA status in the API",
    body: "Please expose the SLA breach status in the tickets API. We want to build our own wallboard for the office TV.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Send later",
    body: "Wish list: schedule a reply to be sent later, for example at 9am in the customer's time zone.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Choose which push notifications I get",
    body: "The mobile app should let me pick which notifications come through as push. Right now it's all or nothing and my phone never stops buzzing.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Multi-brand support",
    body: "We run two brands from one support team. Would love multi-brand support with separate help centers and sender addresses.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Undo send",
    body: "An 'undo send' for ten seconds, like Gmail has, would save me some embarrassment.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Kanban view for tickets",
    body: "Could you add a kanban board view of tickets grouped by status? We'd use it in our morning standup.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Spell check in French and Italian",
    body: "Spell check only works in English. We answer customers in French and Italian as well.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "SSO on the Team plan",
    body: "SSO is only available on Business. We're a 12-person team but our security policy requires SSO for every tool. Please consider adding it to Team, otherwise we'll have to move elsewhere at renewal.",
    category: "feature_request",
    priority: "p3_medium"
  },
  {
    subject: "Suggest merging duplicate tickets",
    body: "Idea: when two tickets from the same customer arrive within minutes of each other, suggest merging them.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Two-way Jira sync",
    body: "The Jira integration only creates issues. Two-way status sync would be a huge time saver for our dev team.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Customise the CSAT survey",
    body: "Let us customise the satisfaction survey text and add a comment box. The default wording doesn't fit our brand voice at all.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "logo on pdf exports",
    body: "would be really nice if the pdf exports had our logo on them, we send them to clients",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Round robin that skips offline agents",
    body: "Please add round-robin assignment that skips agents who are offline or on a break.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Filter reports by custom field",
    body: "Reports can't be filtered by custom fields. Being able to would let us report by product line.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Recurring tickets",
    body: "Feature request: recurring tickets for routine tasks, e.g. a monthly server check or a quarterly license review.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "AI reply suggestions?",
    body: "Are you planning AI-suggested replies? Competitors have it now and my boss keeps asking me about it.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Public roadmap with voting",
    body: "You should publish a public roadmap where customers can vote on features. I'd vote every week.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Side conversations with vendors",
    body: "We often need to loop in a vendor without exposing the whole ticket. Something like side conversations would be ideal.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Raise the attachment limit",
    body: "25 MB is too small for the screen recordings our customers send. Could the limit be 100 MB on Business?",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Help center login with customer's SSO",
    body: "Our B2B customers would like to log into our help center with their own company SSO instead of a separate password.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Higher API limit as an add-on",
    body: "We need a higher API rate limit for our nightly sync of about a million records. Is there a paid add-on? If not please consider one, the sync currently takes 9 hours.",
    category: "feature_request",
    priority: "p3_medium"
  },
  {
    subject: "Dark mode on the help center",
    body: "Please let our public help center follow the visitor's dark mode setting.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Templates for internal notes",
    body: "Macros only work for public replies. Templates for internal notes would help a lot with our escalation checklist.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Time report by agent and customer",
    body: "Could the time tracking report break down by agent and by customer? We'd use it to invoice our own clients.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Link related tickets",
    body: "Allow linking tickets as parent and child so we can handle an incident that many customers report about.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Configurable webhook retries",
    body: "It would help if the webhook retry schedule could be configured per endpoint. Ours is slow to recover after deploys.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Shopify integration",
    body: "A Shopify integration that shows order history next to the ticket would make us switch our whole team over.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "WhatsApp as a channel",
    body: "Most of our customers in Brazil use WhatsApp. Any chance you'll support it as a channel?",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Command palette",
    body: "Feature suggestion: a Cmd+K command palette to jump to any ticket, contact or setting.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Sandbox workspace",
    body: "Please give Business customers a sandbox workspace to test automations before they touch production.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Automatic translation",
    body: "Automatic translation of incoming tickets would be amazing. We get requests in 9 languages and only speak 3.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Import articles from markdown",
    body: "Let us import help center articles from markdown files in bulk. Copy-pasting 200 articles is painful.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Colored tags",
    body: "Can tags have colours? It would make the inbox so much easier to scan.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Statuspage banner in the widget",
    body: "Could you integrate with Statuspage so a banner shows in the widget during an incident? When our app is down everyone writes in at once about the same thing.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Offline mode in the mobile app",
    body: "I often work on trains with no signal. An offline mode that queues my replies and sends them later would be great.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Bulk merge contacts",
    body: "We have thousands of duplicate contacts after our migration. A bulk merge tool would help us enormously.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Field-level permissions",
    body: "Our legal team requires that the outsourced agents can't see the 'Contract value' field. We can't onboard them until that is possible. Is field-level permission planned?",
    category: "feature_request",
    priority: "p3_medium"
  },
  {
    subject: "Reply from Slack",
    body: "It'd be so nice to answer tickets straight from the Slack notification without opening Acme.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Calendar of due dates",
    body: "A calendar view showing tickets by due date would help us plan the week.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "GraphQL API",
    body: "Any plans for a GraphQL API? We'd like to fetch tickets, contacts and messages in one round trip.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "More than 5 CCs",
    body: "Please raise the CC limit on replies. Some of our B2B customers have 8 to 10 people on every thread.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Custom CSS for the chat widget",
    body: "Can the chat widget support custom CSS? Our designers want it to match the site exactly, the colour picker isn't enough.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Boolean search",
    body: "Boolean operators in search (AND, OR, NOT) and searching inside attachments would be great.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Show who else is viewing a ticket",
    body: "Show when another agent is viewing or typing on the same ticket. We sometimes answer the same customer twice.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "xlsx export",
    body: "plz add xlsx export, csv messes up our accents when we open it in excel",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "SLA per customer tier",
    body: "We'd like different SLAs per customer tier (gold, silver, bronze), not just one per workspace.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Tag tickets by sentiment",
    body: "It would be cool if tickets were tagged with the customer's mood automatically, so angry customers get seen first.",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Terraform provider",
    body: "Would you consider a Terraform provider so we can manage automations and webhooks as code?",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "HIPAA and a BAA",
    body: "We're a group of clinics and need a signed BAA before we can put patient tickets in. Is HIPAA compliance on your roadmap? We'd sign a three-year contract if so.",
    category: "feature_request",
    priority: "p3_medium"
  },
  {
    subject: "Phone calls as tickets",
    body: "Any plans for a phone integration (Twilio or Aircall) so calls become tickets automatically?",
    category: "feature_request",
    priority: "p4_low"
  },
  {
    subject: "Love it, one suggestion",
    body: "Love the product! One suggestion: let us pin important tickets to the top of the inbox.",
    category: "feature_request",
    priority: "p4_low"
  },
  // question
  {
    subject: "How do I add an agent?",
    body: "Hi, how do I add a new agent to our team? I can't find the invite button anywhere.",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Importing from Zendesk",
    body: "Is there a way to import our ticket history from Zendesk? It's about 50k tickets going back five years.",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Max page size for tickets endpoint",
    body: "What's the maximum page size for GET /v2/tickets? The docs mention a cursor but not the limit.",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Where is our data stored?",
    body: "Which region is our data stored in? Our privacy officer needs it for the records of processing.",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Pausing SLAs overnight",
    body: "How do I set business hours so that SLA timers pause overnight?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Verifying webhooks",
    body: "How can I check that a webhook really comes from you? Is there a signature header I should verify?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "api key",
    body: "where do i create an api key? new to this, sorry if it's obvious",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Tags vs categories",
    body: "What's the difference between tags and categories in the ticket settings? When should we use which?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Rate limits on Business",
    body: "What are the API rate limits on the Business plan? We're planning a nightly sync of about 200k records and want to stay clear of 429s.",
    category: "question",
    priority: "p3_medium"
  },
  {
    subject: "Widget in a React single page app",
    body: "Can the chat widget be embedded in a single page React app? Do I need to initialise it again on every route change?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "SAML with OneLogin?",
    body: "Quick question: do you support SAML SSO with OneLogin, or only Okta and Azure AD?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Which automation runs first",
    body: "If two automations match the same ticket, which one runs first? Is it the order in the list?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Forwarding our support mailbox",
    body: "How do I forward our support@ mailbox into Acme Cloud so incoming emails become tickets?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Android tablet app?",
    body: "Do you have an app for Android tablets, or is it phones only?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "First response time per agent",
    body: "Where can I see the average first response time per agent for last quarter?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Uptime guarantee on Enterprise",
    body: "What uptime do you guarantee on Enterprise, and how are service credits calculated if you miss it?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Placeholders in macros",
    body: "Which placeholders can I use in macros? I'd like to insert the customer's first name.",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Deleting a ticket for good",
    body: "Is it possible to delete a ticket permanently, not just close it?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "DNS for help center custom domain",
    body: "How do I point help.mycompany.com at our help center? Which DNS record do I need to add?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Test environment for the API?",
    body: "Do you have a test environment where I can try out the API without touching our real data?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Any limit on stored tickets?",
    body: "Is there a limit on how many tickets or contacts we can store?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Help center in two languages",
    body: "Can our help center be in more than one language? We need English and Portuguese.",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Pending vs on hold",
    body: "What's the difference between the 'pending' and 'on hold' statuses? My team uses them inconsistently and I want to write a guideline.",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Security questionnaire and SOC 2 report",
    body: "Our procurement needs a completed security questionnaire (attached) and a copy of your SOC 2 report before the contract can be signed. Who should I send this to?",
    category: "question",
    priority: "p3_medium"
  },
  {
    subject: "When does the CSAT survey go out?",
    body: "Is the satisfaction survey sent immediately when a ticket is solved, or after a delay?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Spreading tickets evenly",
    body: "How do I distribute new tickets evenly between the agents in a group?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "move ticket to another group",
    body: "how can i move a ticket from the Sales group to Support? don't see an option",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "ticket.updated payload",
    body: "Does the ticket.updated webhook include the previous values of changed fields, or only the new ones?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Format of a full data export",
    body: "If we export all our data, what format does it come in? JSON, CSV, something else?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Internal notes never visible to customers?",
    body: "Just to double check: customers can never see internal notes, right? Not even in the email thread?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Onboarding sessions",
    body: "Do you offer onboarding or training sessions for new teams? We have 15 agents starting next month.",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Zapier or the native HubSpot integration?",
    body: "Should we sync contacts with the Zapier integration or the native HubSpot one? What are the differences in practice?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Is API v1 being deprecated?",
    body: "Is v1 of the API going away at some point? We still use it in an old script and I'd like to plan the migration.",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Auto-reply outside business hours",
    body: "Can I set an automatic reply for emails that arrive outside our business hours?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "What happens to my data after the trial?",
    body: "If I don't subscribe when my trial ends, is my data deleted right away, or is it kept for a while?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Supported browsers",
    body: "Which browsers do you support? Some of our agents are still on an older version of Edge.",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "HTML in notification templates",
    body: "Is HTML supported in the notification email templates, or only plain text?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Backups and retention",
    body: "How often do you back up our data, and how long are backups kept? I need this for our disaster recovery plan, which is due for review this week.",
    category: "question",
    priority: "p3_medium"
  },
  {
    subject: "Counting open tickets via the API",
    body: "Is there an endpoint that just returns the number of open tickets, without paging through all of them?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "markdown in replies?",
    body: "can I use markdown when replying? mainly bold and bullet lists",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "How does duplicate detection work?",
    body: "How does your duplicate ticket detection decide that two tickets are the same? Can we tune how strict it is?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Tags from the email subject",
    body: "Is there a way to add a tag by putting something in the email subject, like #urgent?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Attachments encrypted at rest?",
    body: "Are attachments stored encrypted at rest? And are they included when we export our data?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Webhook source IPs",
    body: "Which IP addresses do your webhooks come from? Our firewall team needs an allowlist.",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "WCAG compliance",
    body: "Is the help center WCAG 2.1 AA compliant? It's a requirement for our public sector customers.",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Start ticket numbers at 10000",
    body: "Can our ticket numbers start at 10000 instead of 1, so they don't clash with our old system?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Status page subscription",
    body: "Do you have a status page I can subscribe to for incident updates?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Push when a ticket is assigned to me",
    body: "Will I get a push notification on my phone when a ticket gets assigned to me?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Searching by date range",
    body: "How do I search for tickets created in a date range? Is there a syntax like created:>2024-01-01?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "CORS on the API",
    body: "Does the API allow CORS, so I can call it from a browser app, or do I need a backend in between?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Go-live checklist",
    body: "We go live with Acme on Monday. Is there a checklist of what we should double-check before we switch our MX records over?",
    category: "question",
    priority: "p3_medium"
  },
  {
    subject: "contact vs user",
    body: "what's the difference between a contact and a user in acme? the docs use both",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Can deleted tickets be recovered?",
    body: "If I delete a ticket, can it be recovered for some time afterwards, or is it gone immediately?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Language detection",
    body: "Does Acme detect the language of incoming tickets automatically, and can we route on it?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Custom field values via the API",
    body: "How do I set a custom field when creating a ticket through the API? What does the JSON look like?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Sending from our own domain",
    body: "How can replies go out from support@ourdomain.com instead of your address? Do we need to set up SPF and DKIM?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Your support hours",
    body: "What are your support hours, and is phone support included in our plan?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Report time zone",
    body: "Which time zone are reports calculated in, mine or the workspace's?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "More than one help center?",
    body: "Can one workspace have more than one help center, one per product?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Article suggestions in the widget",
    body: "Does the widget have a bot that suggests help articles before the visitor opens a ticket?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "auto tag by keyword",
    body: "is it possible to automatically tag tickets that mention 'refund' so they go to the billing team?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Automatic deletion of old tickets",
    body: "Can we have closed tickets deleted automatically after two years, for GDPR data minimisation?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Reply to a closed ticket",
    body: "If a customer replies to a closed ticket, does it reopen, or does it create a new ticket?",
    category: "question",
    priority: "p4_low"
  },
  {
    subject: "Are webhooks delivered in order?",
    body: "Are webhooks delivered in order? Now and then we see ticket.updated arrive before ticket.created.",
    category: "question",
    priority: "p4_low"
  },
  // other
  {
    subject: "SEO services for your website",
    body: "Hello, I noticed your website is not ranking on the first page of Google for several important keywords. We can help with our affordable SEO packages. Reply for a free audit.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Referral partnership",
    body: "Hi team, I run a consultancy that implements help desk tools for mid-size companies. Would you be open to a referral partnership?",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Out of office",
    body: "I am out of the office until 12 April with limited access to email. For urgent matters please contact my colleague Anna Berg.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Application - frontend developer",
    body: "Hello, I'd love to apply for the frontend developer role I saw on LinkedIn. My CV and portfolio are attached.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "CONGRATULATIONS you have WON",
    body: "Congratulations! Your email was selected in our annual international lottery. Claim your $1,000,000 prize by replying with your bank details.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "test",
    body: "test test 123",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "leaking pipe",
    body: "Hi, is this Acme Plumbing? I need someone to look at a leaking pipe under my kitchen sink this week.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Thank you Sarah!",
    body: "Just wanted to say thanks to Sarah, who helped us last week. Great service, no reply needed!",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Ray-Ban 85% off",
    body: "Ray-Ban sunglasses 85% off, limited time only!!! Best prices online, click here now.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Podcast interview",
    body: "I host a podcast about customer experience and would love to interview your CEO. Who's the right person to talk to?",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Request for comment by Thursday",
    body: "I'm a reporter at TechDaily writing a piece on help desk software pricing. Could someone from your team comment by Thursday?",
    category: "other",
    priority: "p3_medium"
  },
  {
    subject: "Verified CTO contact list",
    body: "We have a verified list of 25,000 CTOs and IT directors in North America. Interested in purchasing it for your outreach?",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Automatic reply: Received",
    body: "This is an automatic confirmation that your message has been received by Harbor Logistics. We will respond within 2 business days.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Guest post for your blog",
    body: "Hi! I'd like to write a guest post for your blog on customer service trends. In exchange I'd only ask for one do-follow link.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "hello",
    body: "hello?",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Legal request for records",
    body: "Please find attached a legal request for records relating to account ID 88213. Kindly confirm the appropriate contact for legal process.",
    category: "other",
    priority: "p3_medium"
  },
  {
    subject: "AI bitcoin trading",
    body: "Grow your wealth with our AI bitcoin trading bot. 300% returns guaranteed. Reply YES to get started today.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "SupportConf sponsorship",
    body: "We're organising SupportConf 2025 in Lisbon and have a few sponsorship packages left. Can I send you the deck?",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Stop sending me newsletters",
    body: "Please stop sending me your marketing newsletters. I never signed up for them.",
    category: "other",
    priority: "p3_medium"
  },
  {
    subject: "Your invoice is attached",
    body: "Dear customer, please find your invoice attached. Open the attached file to view payment details. Regards, Accounts Dept.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "URGENT: domain expires TODAY",
    body: "URGENT: your domain acmecloud-support.com will expire today. Renew now to avoid losing your website and email. Click here to renew.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Your subway ad",
    body: "Saw your ad on the subway this morning. The font is hard to read from across the carriage. Thought you'd want to know.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "5-minute survey for my thesis",
    body: "I'm a master's student researching support automation. Would someone on your team fill in a 5-minute survey?",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Reseller in India",
    body: "We are IT reseller in Pune, want to resell your software in India market. Kindly share reseller price list and margin.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Sponsoring our youth football club",
    body: "Our local youth football club is looking for sponsors for new kits. Would Acme Cloud consider a small donation?",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Re: Re: Re: lunch",
    body: "Sounds good, see you at 12:30 at the usual place!",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Modern website from $499",
    body: "Your website looks outdated. We build modern responsive websites starting at just $499. Let's talk.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Offshore developers",
    body: "Need extra developers? Our team of 200 engineers in Vietnam can start next week at $18/hour.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Undeliverable: Your ticket update",
    body: "Delivery has failed to these recipients or groups: info@northwind-example.com. The recipient's mailbox is full and can't accept messages now.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Just a compliment",
    body: "Your product is wonderful. We switched from a competitor last month and everyone on the team is happier. Keep it up!",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "asdf",
    body: "asdfjkl;",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Wrong person?",
    body: "I think this email was meant for someone else. I don't use Acme Cloud and I don't know who you are.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "High authority backlinks",
    body: "Dear webmaster, I can provide 50 high-authority backlinks for your site at a special price this week only.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "15 minutes next Tuesday?",
    body: "Hi, are you the right person to talk to about sales intelligence software? Do you have 15 minutes next Tuesday?",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Vendor onboarding form",
    body: "Please complete our vendor onboarding form so we can add Acme Cloud to our approved supplier list.",
    category: "other",
    priority: "p3_medium"
  },
  {
    subject: "Vulnerability found - bounty?",
    body: "I found a vulnerability on your website (missing SPF record). Please tell me what bounty you pay before I share the details.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Senior engineering candidates",
    body: "I'm a tech recruiter with several senior candidates who'd be a great fit for your engineering team. Open to a quick chat?",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Feature in our newsletter",
    body: "We'd like to feature Acme Cloud in our 'Tools of the month' newsletter. Could you send a short description and a logo?",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Free webinar: cut support costs",
    body: "Join our free webinar: 10 ways to cut your support costs in 2025. Register now, seats are limited!",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "For Daniel in sales",
    body: "Hi, could you pass this on to Daniel in your sales team? He left his jacket at our office yesterday.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "my wordpress site is down",
    body: "My WordPress site on Acme Hosting is down since this morning, can you restart the server?",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Business loan approved in 24h",
    body: "Get a business loan of up to $250,000 approved in 24 hours. No credit check, no paperwork.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Microsoft 365 license expired",
    body: "Your Microsoft 365 license has expired. Call +1-888-555-0199 to renew immediately or lose access to all your files.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Re: quick question",
    body: "Following up on my last email: did you get a chance to look at our proposal for video marketing?",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Nominated for Global SaaS Excellence Award",
    body: "Acme Cloud has been nominated for the Global SaaS Excellence Award 2025! To confirm your nomination, a processing fee of $950 applies.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Free coffee tasting box",
    body: "Looking for an office coffee supplier? Get a free tasting box for your team this month.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Good morning",
    body: "Good morning! Hope you are having a nice day.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Übersetzungsdienste",
    body: "Sehr geehrte Damen und Herren, wir bieten professionelle Übersetzungsdienste für Ihre Website an. Gerne senden wir Ihnen ein Angebot.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Link exchange",
    body: "Would you like to exchange links with our project management blog? We have a domain authority of 45.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Re: Your ticket #3321 has been closed",
    body: "ok thx",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Sponsored TikTok video",
    body: "Hey! I'm a tech influencer with 80k followers on TikTok and I'd love to make a sponsored video about your app.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Scholarship page link",
    body: "We're a university offering scholarships to students. Could you add a link to our scholarship page somewhere on your site?",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Your driver broke my package!!!",
    body: "Your delivery driver threw my package over the fence and now it's broken!!! Terrible service, I want compensation.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Invitation to connect",
    body: "I'd like to add you to my professional network on LinkedIn.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "FW: FW: good luck",
    body: "Forward this message to 10 friends within the hour for good luck!!!",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Paid interview, $150 gift card",
    body: "We're running paid interviews ($150 gift card) with help desk administrators about their tools. Interested?",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Use of the ACME trademark",
    body: "We represent the owner of the ACME trademark in the European Union. Please contact us regarding your use of the name.",
    category: "other",
    priority: "p3_medium"
  },
  {
    subject: "(no subject)",
    body: "Sent from my iPhone",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Photos from the meetup",
    body: "Here are the photos from last Thursday's meetup, thanks for coming! The album link is below.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Season's greetings",
    body: "Season's greetings from all of us at Brookside Marketing!",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Let us run your Google Ads",
    body: "Your competitors are spending on Google Ads and winning your customers. Let us manage your ads account, first month free.",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "bus schedule",
    body: "Hi I'm trying to reach my son's school about the new bus schedule, is this the right address?",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Summer internship",
    body: "I'm a student looking for a summer internship in customer support. Do you have any openings?",
    category: "other",
    priority: "p4_low"
  },
  {
    subject: "Your customer is spamming us",
    body: "One of your customers is using your help desk to send us unsolicited emails from a noreply address. Please make them stop.",
    category: "other",
    priority: "p3_medium"
  },
]
