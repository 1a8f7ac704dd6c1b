/**
 * The joins both take-backs of money that is not the merchant's share (bank credits:
 * bank-returns/take-back-bank-credits.ts; crypto deposits: deposit-returns/late-funding-returns.ts),
 * from a funding_intent_credits row `c` to its intent `i` and transfer `t`, and `failed`: the
 * credit went to a customer-funded transfer whose payout failed (FAILED), or came back after it
 * completed (REFUNDED: the payee's bank returned it, and its refund gave the merchant everything the
 * transfer cost), so the whole credit goes back and not only its excess. One text so the two can never disagree on which credits that is.
 */
export const CREDIT_OF_FAILED_PAYOUT_JOINS = `JOIN funding_intents i ON i.id = c.intent_id
         JOIN transfers t ON t.id = i.transfer_id
         CROSS JOIN LATERAL (SELECT t.status IN ('FAILED', 'REFUNDED') AND i.payer_type = 'CUSTOMER' AND c.applied_amount > 0 AS failed) f`;
