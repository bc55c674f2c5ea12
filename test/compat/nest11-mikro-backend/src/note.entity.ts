import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

@Entity({ tableName: 'compat_mikro_backend_notes' })
export class Note {
  @PrimaryKey()
  id!: number;

  @Property()
  text!: string;

  @Property()
  author!: string;
}
