import { Migration } from '@mikro-orm/migrations';

/**
 * A card charge's reference (`invoice:<id>:charge:<payment method id>`) stands on one Stripe
 * PaymentIntent: a unique index over the references of PaymentIntents. A database where a pay
 * refused before deciding and a later pay each left one keeps the one furthest along (captured or
 * canceled, then authorized, then the latest); the others move to `<reference>:replaced:<id>`,
 * as a later pay now retires them.
 */
export class Migration20261128180000OneIntentPerCharge extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      with ranked as (
        select provider, object_id, holdfast_ref,
               row_number() over (
                 partition by holdfast_ref
                 order by case snapshot ->> 'status' when 'succeeded' then 3 when 'canceled' then 2 when 'requires_capture' then 1 else 0 end desc,
                          updated_at desc, object_id
               ) as place
          from provider_object
         where object_type = 'payment_intent'
      )
      update provider_object p
         set holdfast_ref = left(r.holdfast_ref || ':replaced:' || r.object_id, 200)
        from ranked r
       where r.place > 1 and p.provider = r.provider and p.object_id = r.object_id;`);
    this.addSql(
      `create unique index provider_object_intent_ref_uq on provider_object (holdfast_ref) where object_type = 'payment_intent';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists provider_object_intent_ref_uq;');
  }
}
