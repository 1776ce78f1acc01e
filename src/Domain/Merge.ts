import { Schema } from "effect"
import { Text } from "./Fields.ts"

const intoIdRule = "into_id must be a ticket id (a uuid)"

/** Which ticket of the same project the merged one goes into. */
export const MergeTicketInput = Schema.Struct({
  into_id: Text("into_id").check(Schema.isUUID(undefined, { message: intoIdRule }))
}).annotate({ message: "request body must be a JSON object", identifier: "MergeTicketInput" })
export type MergeTicketInput = typeof MergeTicketInput.Type

/** A detected duplicate the operator may merge the ticket into. */
export const MergeSuggestion = Schema.Struct({
  ticket_id: Schema.String,
  ticket_number: Schema.Int,
  subject: Schema.String
}).annotate({ identifier: "MergeSuggestion" })
export type MergeSuggestion = typeof MergeSuggestion.Type
