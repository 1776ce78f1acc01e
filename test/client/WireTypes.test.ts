// The client's hand-written wire types against the schemas the service itself encodes and
// decodes with. The checks are made by the type checker (`npm run check`, which covers test/):
// a field added, renamed or retyped on one side and not the other fails the build.
import { describe, expectTypeOf, it } from "vitest"
import type * as Client from "../../src/client/index.ts"
import type { ArticleSearchResults, PublicArticle } from "../../src/Domain/Article.ts"
import type { SearchTypes, UnifiedSearchResults } from "../../src/Domain/Search.ts"
import type {
  AddMessageInput,
  ClaimedTicket,
  ContactTicketList,
  CreateTicketInput,
  Message,
  MessageCreated,
  Ticket,
  TicketCreated
} from "../../src/Domain/Ticket.ts"
import type { Attachment, Upload } from "../../src/Domain/Attachment.ts"
import type { RateInput, RatingRecorded, RatingRequest } from "../../src/Domain/Satisfaction.ts"
import type { Health } from "../../src/Health/Api.ts"
import type { EventKind } from "../../src/Domain/Events.ts"
import type { Category, Priority, Statuses } from "../../src/Domain/Fields.ts"

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

describe("the client's wire types are the service's", () => {
  it("answers", () => {
    expectTypeOf<Client.Ticket>().toEqualTypeOf<typeof Ticket.Type>()
    expectTypeOf<Client.ContactTicketList>().toEqualTypeOf<ContactTicketList>()
    expectTypeOf<Client.Message>().toEqualTypeOf<typeof Message.Type>()
    expectTypeOf<Client.CreatedTicket>().toEqualTypeOf<typeof TicketCreated.Type>()
    expectTypeOf<Client.AddedMessage>().toEqualTypeOf<typeof MessageCreated.Type>()
    expectTypeOf<Client.ClaimedTicket>().toEqualTypeOf<typeof ClaimedTicket.Type>()
    expectTypeOf<Client.ArticleSearchResponse>().toEqualTypeOf<ArticleSearchResults>()
    expectTypeOf<Client.PublicArticle>().toEqualTypeOf<PublicArticle>()
    expectTypeOf<Client.SearchResponse>().toEqualTypeOf<typeof UnifiedSearchResults.Type>()
    expectTypeOf<Client.Health>().toEqualTypeOf<typeof Health.Type>()
    expectTypeOf<Client.Attachment>().toEqualTypeOf<Attachment>()
    expectTypeOf<Client.Upload>().toEqualTypeOf<Upload>()
    expectTypeOf<Client.RatingRequest>().toEqualTypeOf<typeof RatingRequest.Type>()
    expectTypeOf<Client.RatingRecorded>().toEqualTypeOf<typeof RatingRecorded.Type>()
  })

  it("requests: the fields the service accepts, as it receives them", () => {
    expectTypeOf<Mutable<Client.CreateTicketInput>>().toEqualTypeOf<Mutable<typeof CreateTicketInput.Encoded>>()
    expectTypeOf<Mutable<Client.AddMessageInput>>().toEqualTypeOf<Mutable<typeof AddMessageInput.Encoded>>()
    expectTypeOf<Mutable<Client.RateInput>>().toEqualTypeOf<Mutable<typeof RateInput.Encoded>>()
  })

  it("names", () => {
    expectTypeOf<Client.Priority>().toEqualTypeOf<Priority>()
    expectTypeOf<Client.Category>().toEqualTypeOf<Category>()
    expectTypeOf<Client.TicketStatus>().toEqualTypeOf<(typeof Statuses)[number]>()
    expectTypeOf<Client.SearchType>().toEqualTypeOf<(typeof SearchTypes)[number]>()
    expectTypeOf<Client.WebhookEventKind>().toEqualTypeOf<EventKind>()
  })
})
