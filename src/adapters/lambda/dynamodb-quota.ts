// The DynamoDB table's quota items (layout in dynamodb-stores.ts).
import type { Plan } from "../../ports/access.ts";
import type { QuotaDecision, QuotaState, QuotaStore } from "../../ports/stores.ts";
import { quotaState, type WindowKeys, windowKeys } from "../quota-windows.ts";
import { type Call, conditional, count, type GetItem, isConditionFailed, itemIn, type Json, key, N } from "./dynamodb-wire.ts";

// Quota: one item per token and month, holding the month's count and a count per day of it. The
// day window lies inside the month window, so a single conditional UpdateItem checks and adds
// both at once: atomic without a transaction, and it returns the exact counts it produced.
export function dynamoQuotaStore(call: Call, TableName: string, getItem: GetItem): QuotaStore {
  const monthKey = (tokenId: string, keys: WindowKeys) => key(`quota#${tokenId}`, `month#${keys.month}`);
  const dayAttribute = (keys: WindowKeys) => `d${keys.day.slice(8, 10)}`;
  // A week of slack after the month ends before a TTL may remove the item.
  const expiresAt = (keys: WindowKeys) => keys.monthResetsAt + 7 * 86_400;

  const stateOf = (item: Json | undefined, keys: WindowKeys, plan: Plan): QuotaState =>
    quotaState(keys, plan, count(item, dayAttribute(keys)), count(item, "used"));

  const read = async (tokenId: string, keys: WindowKeys, plan: Plan) => stateOf(await getItem(monthKey(tokenId, keys)), keys, plan);

  const refused = async (tokenId: string, keys: WindowKeys, plan: Plan): Promise<QuotaDecision> => ({
    allowed: false,
    ...(await read(tokenId, keys, plan)),
  });

  /** The common refund: both counts hold at least `units`. False when one does not. */
  const subtract = (tokenId: string, keys: WindowKeys, units: number) =>
    conditional(
      call("UpdateItem", {
        TableName,
        Key: monthKey(tokenId, keys),
        UpdateExpression: "ADD used :minus, #day :minus",
        ConditionExpression: "used >= :units AND #day >= :units",
        ExpressionAttributeNames: { "#day": dayAttribute(keys) },
        ExpressionAttributeValues: { ":minus": N(-units), ":units": N(units) },
      }),
    );

  /** Clamps at zero: writes the new counts only if nobody changed the ones read meanwhile. */
  const clampTo = (tokenId: string, keys: WindowKeys, item: Json, units: number) => {
    const day = dayAttribute(keys);
    const [monthUsed, dayUsed] = [count(item, "used"), count(item, day)];
    return conditional(
      call("UpdateItem", {
        TableName,
        Key: monthKey(tokenId, keys),
        UpdateExpression: "SET used = :month, #day = :day",
        ConditionExpression: "(attribute_not_exists(used) OR used = :oldMonth) AND (attribute_not_exists(#day) OR #day = :oldDay)",
        ExpressionAttributeNames: { "#day": day },
        ExpressionAttributeValues: {
          ":month": N(Math.max(0, monthUsed - units)),
          ":day": N(Math.max(0, dayUsed - units)),
          ":oldMonth": N(monthUsed),
          ":oldDay": N(dayUsed),
        },
      }),
    );
  };

  return {
    async consume(tokenId, units, plan, now) {
      const keys = windowKeys(now);
      if (units > plan.daily_units || units > plan.monthly_units) return refused(tokenId, keys, plan);
      const day = dayAttribute(keys);
      try {
        const result = await call("UpdateItem", {
          TableName,
          Key: monthKey(tokenId, keys),
          UpdateExpression: "ADD used :units, #day :units SET expires_at = :expires",
          ConditionExpression: "(attribute_not_exists(used) OR used <= :monthMax) AND (attribute_not_exists(#day) OR #day <= :dayMax)",
          ExpressionAttributeNames: { "#day": day },
          ExpressionAttributeValues: {
            ":units": N(units),
            ":monthMax": N(plan.monthly_units - units),
            ":dayMax": N(plan.daily_units - units),
            ":expires": N(expiresAt(keys)),
          },
          ReturnValues: "ALL_NEW",
        });
        return { allowed: true, ...stateOf(itemIn(result, "Attributes"), keys, plan) };
      } catch (err) {
        if (!isConditionFailed(err)) throw err;
        return refused(tokenId, keys, plan);
      }
    },
    async refund(tokenId, units, consumedAt) {
      if (units <= 0) return;
      const keys = windowKeys(consumedAt);
      if (await subtract(tokenId, keys, units)) return;
      // Fewer units left than the refund: compare-and-set to the clamped counts, again if a
      // concurrent call moved them between the read and the write.
      for (let attempt = 0; attempt < 10; attempt++) {
        const item = await getItem(monthKey(tokenId, keys));
        if (!item) return; // nothing was counted in that month
        if (await clampTo(tokenId, keys, item, units)) return;
      }
      throw new Error(`DynamoDB quota refund for ${tokenId} kept conflicting with other writes`);
    },
    async peek(tokenId, plan, now) {
      return read(tokenId, windowKeys(now), plan);
    },
  };
}
