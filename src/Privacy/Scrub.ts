import { erasedText } from "../Domain/Privacy.ts"

/** What an erasure removed, for rewriting the events that quoted it. */
export interface Erased {
  /** lower-cased */
  readonly email: string
  /** the tickets the contact filed */
  readonly tickets: ReadonlySet<string>
  /** the messages the contact wrote */
  readonly messages: ReadonlySet<string>
  /** the files deleted */
  readonly files: ReadonlySet<string>
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The event JSON `text` (a webhook body: `event`, `timestamp`, `data`) with the contact's data
 * replaced as the rows were: the subject of their ticket and the text of their message become
 * the erased marker, their address and name null, a rating's comment null, deleted files gone
 * from `attachments`, and any field that is their address null. Keys keep their order, so a
 * rewritten body reads as the original did. Undefined when nothing in it is theirs.
 */
export const scrubEvent = (text: string, erased: Erased): string | undefined => {
  let event: unknown
  try {
    event = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!isObject(event) || !isObject(event.data)) return undefined
  const data: Record<string, unknown> = { ...event.data }
  let changed = false
  const replace = (key: string, value: unknown) => {
    if (key in data && data[key] !== value) {
      data[key] = value
      changed = true
    }
  }
  if (typeof data.id === "string" && erased.tickets.has(data.id)) {
    replace("subject", erasedText)
    replace("sender_email", null)
    replace("sender_name", null)
    replace("comment", null)
  }
  if (typeof data.message_id === "string" && erased.messages.has(data.message_id)) {
    replace("body", erasedText)
    replace("contact_email", null)
  }
  if (Array.isArray(data.attachments)) {
    const kept = data.attachments.filter((file) => !(isObject(file) && typeof file.id === "string" && erased.files.has(file.id)))
    if (kept.length !== data.attachments.length) replace("attachments", kept)
  }
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === "string" && value.toLowerCase() === erased.email) replace(key, null)
  }
  return changed ? JSON.stringify({ ...event, data }) : undefined
}
