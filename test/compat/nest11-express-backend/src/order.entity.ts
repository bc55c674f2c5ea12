import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

// A table name of its own: the machine's PostgreSQL database `test` is shared with other suites.
@Entity('compat_express_backend_orders')
export class Order {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column()
  customer: string;

  @Column()
  item: string;

  @Column('int')
  quantity: number;

  @Column({ default: 'pending' })
  status: string;
}
